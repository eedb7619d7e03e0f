/**
 * graphile-worker three ways: its defaults; its recommended local queue (`localQueue.size`
 * concurrency + 1, from its 0.17 release notes); and the settings of its published performance
 * figures (`localQueue: { size: 500 }`, `completeJobBatchDelay: 0`, `failJobBatchDelay: 0`).
 */
import { CONCURRENCY, JOB_TYPE, PG_URL, importPeer, type Library, type Payload } from './types.js';

type Variant = 'default' | 'recommended' | 'perf';

const PRESETS: Record<Variant, Record<string, unknown>> = {
  default: {},
  recommended: { localQueue: { size: CONCURRENCY + 1 } },
  perf: { localQueue: { size: 500 }, completeJobBatchDelay: 0, failJobBatchDelay: 0 },
};

const SETTINGS: Record<Variant, string> = {
  default: `defaults; concurrentJobs ${CONCURRENCY}`,
  recommended: `concurrentJobs ${CONCURRENCY}, localQueue.size ${CONCURRENCY + 1}`,
  perf: `concurrentJobs ${CONCURRENCY}, localQueue.size 500, completeJobBatchDelay 0, failJobBatchDelay 0`,
};

export function graphileWorker(variant: Variant): Library {
  return {
    id: `graphile-worker-${variant}`,
    label: variant === 'default' ? 'graphile-worker' : `graphile-worker (${variant})`,
    backend: 'postgres',
    kind: variant === 'perf' ? 'tuned' : 'peer',
    settings: SETTINGS[variant],
    async open(namespace, create) {
      const gw = await importPeer('graphile-worker');
      const utils = await gw.makeWorkerUtils({ connectionString: PG_URL, schema: namespace });
      if (create) await utils.migrate();
      let runner: { stop(): Promise<void> } | undefined;
      const runAt = (delayMs?: number) => (delayMs ? { runAt: new Date(Date.now() + delayMs) } : {});
      return {
        addMany: async (payloads, delayMs) => {
          await utils.addJobs(payloads.map((payload) => ({ identifier: JOB_TYPE, payload, ...runAt(delayMs) })));
        },
        addOne: async (payload) => {
          await utils.addJob(JOB_TYPE, payload);
        },
        work: async (onJob) => {
          runner = await gw.run({
            connectionString: PG_URL,
            schema: namespace,
            concurrency: CONCURRENCY,
            noHandleSignals: true,
            logger: new gw.Logger(() => () => undefined),
            preset: { worker: PRESETS[variant] },
            taskList: {
              [JOB_TYPE]: async (payload: unknown) => onJob(payload as Payload),
            },
          });
        },
        close: async () => {
          await runner?.stop();
          await utils.release();
        },
      };
    },
  };
}
