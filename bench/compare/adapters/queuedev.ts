/** queuedev from the working tree's source, so the comparison measures this checkout. */
import { initJobQueue, migrate, type JobQueueConfig } from '../../../src/index.js';
import { BATCH_SIZE, CONCURRENCY, JOB_TYPE, PG_URL, REDIS_URL, type Backend, type Library } from './types.js';

function configFor(backend: Backend, namespace: string): JobQueueConfig {
  return backend === 'postgres'
    ? { backend: 'postgres', databaseConfig: { connectionString: PG_URL }, schema: namespace }
    : { backend: 'redis', redisConfig: { url: REDIS_URL, keyPrefix: `${namespace}:` } };
}

export function queuedev(backend: Backend): Library {
  return {
    id: `queuedev-${backend}`,
    label: 'queuedev',
    backend,
    kind: 'queuedev',
    settings: `defaults; processor batchSize ${BATCH_SIZE}, concurrency ${CONCURRENCY}`,
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
            { batchSize: BATCH_SIZE, concurrency: CONCURRENCY },
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
