/**
 * Child process of the comparison: `adder` adds jobs for the pickup workload (another process
 * than the worker's); `worker` runs one worker of the multi-process drain and reports how many
 * times it ran each job.
 */
import { libraryById } from './libraries.js';

const [role, libraryId, namespace, countArg] = process.argv.slice(2);
const send = (message: unknown) => process.send!(message);
const library = libraryById(libraryId!);
const handle = await library.open(namespace!, false);

if (role === 'adder') {
  // Adds `count` jobs 20 ms apart, each stamped with the wall-clock time just before its add.
  const count = Number(countArg);
  for (let n = 0; n < count; n++) {
    await handle.addOne({ n, at: performance.timeOrigin + performance.now() });
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  await handle.close();
  send({ done: true });
} else {
  const runs = new Map<number, number>();
  let reported = 0;
  const progress = setInterval(() => {
    const handled = [...runs.values()].reduce((a, b) => a + b, 0);
    if (handled !== reported) send({ handled: handled - reported });
    reported = handled;
  }, 10);
  process.on('message', (message: { go?: boolean; stop?: boolean }) => {
    if (message.go) void handle.work((payload) => runs.set(payload.n, (runs.get(payload.n) ?? 0) + 1));
    if (message.stop) {
      void handle.close().then(() => {
        clearInterval(progress);
        send({ runs: [...runs.entries()] });
        process.disconnect();
      });
    }
  });
  send({ ready: true });
}
