/** pg-boss: `insert` for bulk adds, `send` for one, `work` with batchSize and localConcurrency. */
import { BATCH_SIZE, CONCURRENCY, JOB_TYPE, PG_URL, importPeer, type Library, type Payload } from './types.js';

export function pgBoss(): Library {
  return {
    id: 'pg-boss',
    label: 'pg-boss',
    backend: 'postgres',
    kind: 'peer',
    settings: `defaults; work() batchSize ${BATCH_SIZE}, localConcurrency ${CONCURRENCY}`,
    async open(namespace, create) {
      const { PgBoss } = await importPeer('pg-boss');
      const boss = new PgBoss({ connectionString: PG_URL, schema: namespace });
      boss.on('error', (err: Error) => console.error(`pg-boss: ${err.message}`));
      await boss.start();
      if (create) await boss.createQueue(JOB_TYPE);
      const startAfter = (delayMs?: number) => (delayMs ? { startAfter: new Date(Date.now() + delayMs) } : {});
      return {
        addMany: async (payloads, delayMs) => {
          await boss.insert(
            JOB_TYPE,
            payloads.map((data) => ({ data, ...startAfter(delayMs) })),
          );
        },
        addOne: async (payload) => {
          await boss.send(JOB_TYPE, payload);
        },
        work: async (onJob) => {
          await boss.work(
            JOB_TYPE,
            { batchSize: BATCH_SIZE, localConcurrency: CONCURRENCY },
            async (jobs: { data: Payload }[]) => {
              for (const job of jobs) onJob(job.data);
            },
          );
        },
        close: async () => {
          await boss.stop({ graceful: true, wait: true });
        },
      };
    },
  };
}
