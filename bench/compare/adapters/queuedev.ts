/** queuedev from the working tree's source, so the comparison measures this checkout. */
import { initJobQueue, migrate, type JobQueueConfig } from '../../../src/index.js';
import { BATCH_SIZE, CONCURRENCY, JOB_TYPE, PG_URL, REDIS_URL, type Backend, type Library } from './types.js';

function configFor(backend: Backend, namespace: string): JobQueueConfig {
  return backend === 'postgres'
    ? { backend: 'postgres', databaseConfig: { connectionString: PG_URL }, schema: namespace }
    : { backend: 'redis', redisConfig: { url: REDIS_URL, keyPrefix: `${namespace}:` } };
}

/**
 * The throughput setting (docs/processing.md, "Claiming ahead"): a buffer of claimed jobs, the
 * counterpart of graphile-worker's localQueue in its performance settings.
 */
const TUNED = { batchSize: 500, claimAhead: 500 };

/** queuedev at its defaults, or `tuned` with the claim-ahead buffer (compared with tuned peers only). */
export function queuedev(backend: Backend, variant: 'default' | 'tuned' = 'default'): Library {
  const tuned = variant === 'tuned';
  const options = tuned ? { ...TUNED, concurrency: CONCURRENCY } : { batchSize: BATCH_SIZE, concurrency: CONCURRENCY };
  return {
    id: tuned ? `queuedev-${backend}-tuned` : `queuedev-${backend}`,
    label: tuned ? 'queuedev (tuned)' : 'queuedev',
    backend,
    kind: tuned ? 'queuedev-tuned' : 'queuedev',
    settings: tuned
      ? `processor concurrency ${CONCURRENCY}, batchSize ${TUNED.batchSize}, claimAhead ${TUNED.claimAhead}`
      : `defaults; processor batchSize ${BATCH_SIZE}, concurrency ${CONCURRENCY}`,
    async open(namespace, create) {
      if (create && backend === 'postgres') await migrate({ databaseUrl: PG_URL, schema: namespace });
      const queue = initJobQueue(configFor(backend, namespace));
      let processor: ReturnType<typeof queue.createProcessor> | undefined;
      const runAt = (delayMs?: number) => (delayMs ? { runAt: new Date(Date.now() + delayMs) } : {});
      return {
        addMany: async (payloads, delayMs) => {
          await queue.addJobs(payloads.map((payload) => ({ jobType: JOB_TYPE, payload, ...runAt(delayMs) })));
        },
        addOne: async (payload) => {
          await queue.addJob({ jobType: JOB_TYPE, payload });
        },
        work: async (onJob) => {
          processor = queue.createProcessor(
            { [JOB_TYPE]: async (payload: unknown) => onJob(payload as { n: number }) },
            options,
          );
          processor.startInBackground();
        },
        close: async () => {
          await processor?.stopAndDrain();
          await queue.close();
        },
      };
    },
  };
}
