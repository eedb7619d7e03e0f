/**
 * A drain of failing jobs: `--jobs` jobs whose handler throws, each allowed `--attempts`
 * attempts (1, the default: every failure is final; more: retried at once, `retryDelay` 0), run by
 * one processor (concurrency 10, batch 10). Prints jobs per second until every job has failed for
 * good, the failures recorded per job, and the CPU per job of this process and of the store's
 * server (as `npm run bench:compare` reads them, bench/compare/cpu.ts).
 *
 *   npm run bench:failures
 *   npm run bench:failures -- --backend redis --jobs 5000 --attempts 3
 */
import { parseArgs } from 'node:util';
import { initJobQueue } from '../src/index.js';
import { countCpu } from './compare/cpu.js';
import { openStore, type BenchBackend } from './setup.js';

const { values: args } = parseArgs({
  options: {
    backend: { type: 'string', default: 'postgres' },
    jobs: { type: 'string', default: '5000' },
    attempts: { type: 'string', default: '1' },
  },
});
if (args.backend !== 'postgres' && args.backend !== 'redis') {
  throw new Error(`--backend: postgres or redis, not ${args.backend}`);
}
const backend: BenchBackend = args.backend;
const total = Number(args.jobs);
const attempts = Number(args.attempts);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const store = await openStore(backend);
const queue = initJobQueue(store.config());
try {
  const jobs = Array.from({ length: total }, (_, n) => ({
    jobType: 'failing',
    payload: { n },
    maxAttempts: attempts,
    retryDelay: 0,
    retryBackoff: false,
  }));
  for (let i = 0; i < total; i += 1_000) await queue.addJobs(jobs.slice(i, i + 1_000));
  let runs = 0;
  const processor = queue.createProcessor(
    {
      failing: async () => {
        runs++;
        throw new Error('the handler failed');
      },
    },
    { concurrency: 10, batchSize: 10, pollInterval: 20 },
  );
  const cpu = await countCpu(backend);
  const start = performance.now();
  processor.startInBackground();
  // Every job has failed for good once every attempt ran and nothing is left to claim.
  while (runs < total * attempts || (await queue.getJobCounts({ limit: total })).byStatus.failed < total)
    await sleep(10);
  const ms = performance.now() - start;
  const perJob = await cpu(total);
  await processor.stopAndDrain();
  console.log(
    `${backend}: ${total} jobs of ${attempts} attempt(s), every attempt failing: ` +
      `${Math.round((total / ms) * 1_000)} jobs/s, ${(runs / total).toFixed(2)} failures per job, ` +
      `CPU per job ${Math.round(perJob.process)} µs process + ` +
      `${perJob.store === undefined ? '?' : Math.round(perJob.store)} µs server`,
  );
} finally {
  await queue.close();
  await store.destroy();
}
