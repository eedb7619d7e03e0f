/** BullMQ on Redis and on its PostgreSQL backend (`createPostgresBackend`, in the bullmq package). */
import { Redis } from 'ioredis';
import {
  CONCURRENCY,
  JOB_TYPE,
  PG_URL,
  REDIS_URL,
  importPeer,
  type Backend,
  type Library,
  type Payload,
} from './types.js';

export function bullmq(backend: Backend): Library {
  return {
    id: `bullmq-${backend}`,
    label: backend === 'postgres' ? 'BullMQ (PostgreSQL)' : 'BullMQ',
    backend,
    kind: 'peer',
    settings: `defaults; Worker concurrency ${CONCURRENCY} (batches are a BullMQ Pro feature)`,
    async open(namespace) {
      const { Queue, Worker, createPostgresBackend } = await importPeer('bullmq');
      // Each Queue and Worker gets its own connection, as BullMQ's documentation sets them up.
      const connections: Redis[] = [];
      const options = () => {
        if (backend === 'postgres')
          return { connection: { connectionString: PG_URL, schema: namespace, migrate: true } };
        const connection = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
        connections.push(connection);
        return { connection, prefix: namespace };
      };
      const extra = backend === 'postgres' ? [createPostgresBackend] : [];
      const queue = new Queue(JOB_TYPE, options(), ...extra);
      let worker: { close(): Promise<void> } | undefined;
      return {
        addMany: async (payloads, delayMs) => {
          await queue.addBulk(
            payloads.map((data) => ({ name: JOB_TYPE, data, opts: delayMs ? { delay: delayMs } : {} })),
          );
        },
        addOne: async (payload) => {
          await queue.add(JOB_TYPE, payload);
        },
        work: async (onJob) => {
          const w = new Worker(
            JOB_TYPE,
            async (job: { data: Payload }) => onJob(job.data),
            { ...options(), concurrency: CONCURRENCY },
            ...extra,
          );
          w.on('error', (err: Error) => console.error(`BullMQ worker: ${err.message}`));
          await w.waitUntilReady();
          worker = w;
        },
        close: async () => {
          await worker?.close();
          await queue.close();
          await Promise.all(connections.map((c) => c.quit()));
        },
      };
    },
  };
}
