/**
 * Processor memory over many processed jobs: adds no-op jobs in chunks, lets one processor
 * drain each chunk, and after each chunk forces a garbage collection and samples the heap and
 * RSS. Finished jobs are removed after each chunk so the store stays small.
 *
 *   npm run bench:memory -- --backend redis --jobs 200000
 */
import { parseArgs } from 'node:util';
import { initJobQueue } from '../src/index.js';
import { openStore, type BenchBackend } from './setup.js';

const { values: args } = parseArgs({
  options: {
    backend: { type: 'string', default: 'postgres' },
    jobs: { type: 'string', default: '200000' },
    chunk: { type: 'string', default: '20000' },
  },
});
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');
const total = Number(args.jobs);
const chunk = Number(args.chunk);
const store = await openStore(args.backend as BenchBackend);
const queue = initJobQueue(store.config());
let handled = 0;
const processor = queue.createProcessor(
  {
    noop: async () => {
      handled++;
    },
  },
  { concurrency: 10, batchSize: 10, pollInterval: 50 },
);
const mb = (bytes: number) => (bytes / 1048576).toFixed(1);
const samples: string[] = [];
const sample = () => {
  gc();
  const m = process.memoryUsage();
  samples.push(`| ${handled.toLocaleString('en')} | ${mb(m.heapUsed)} | ${mb(m.rss)} |`);
  console.error(samples.at(-1));
};
try {
  processor.startInBackground();
  const t0 = performance.now();
  for (let done = 0; done < total; done += chunk) {
    for (let i = 0; i < chunk; i += 1000) {
      await queue.addJobs(Array.from({ length: 1000 }, () => ({ jobType: 'noop', payload: {} })));
    }
    while (handled < done + chunk) await new Promise((resolve) => setTimeout(resolve, 50));
    await queue.cleanupOldJobs(0);
    await queue.cleanupOldJobEvents(0);
    sample();
  }
  const seconds = (performance.now() - t0) / 1000;
  await processor.stopAndDrain();
  console.log(`\n${args.backend}: ${handled.toLocaleString('en')} jobs in ${seconds.toFixed(0)} s`);
  console.log('| jobs processed | heap used MB (after GC) | RSS MB |\n|---|---|---|');
  console.log(samples.join('\n'));
} finally {
  await queue.close();
  await store.destroy();
}
