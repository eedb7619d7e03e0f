/** Child process of the benchmark: drains `total` no-op jobs and reports its peak RSS. */
import { initJobQueue } from '../src/index.js';
import { configFromDescription } from './setup.js';

const [description, totalArg] = process.argv.slice(2);
const total = Number(totalArg);
const queue = initJobQueue(configFromDescription(JSON.parse(description!)));
let handled = 0;
let peakRss = process.memoryUsage().rss;
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 50);
let finished!: () => void;
const done = new Promise<void>((r) => (finished = r));
const processor = queue.createProcessor(
  {
    noop: async () => {
      if (++handled === total) finished();
    },
  },
  { concurrency: 10, pollInterval: 50 },
);
processor.startInBackground();
await done;
await processor.stopAndDrain();
clearInterval(sampler);
peakRss = Math.max(peakRss, process.memoryUsage().rss);
await queue.close();
process.send!({ peakRss });
process.disconnect();
