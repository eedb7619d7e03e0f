/**
 * The operations layer: between the queue facade and the Backend. Each family validates its
 * input, calls the backend and emits the hooks for everything the backend reports, whoever
 * called it (the queue, a processor, the supervisor, cron, the dashboard through the queue).
 *
 * - jobs.ts         add, retry, cancel, edit
 * - maintenance.ts  reclaim, retention cleanup (queue methods and supervisor tasks)
 * - processing.ts   claim and run outcomes; job-run.ts: a handler's own writes
 * - cron.ts         schedule operations and the due-slot enqueue
 * - tokens.ts       waitpoint tokens
 * - hooks.ts        the only emitter of `job:*` hooks
 */
import type { OperationsContext } from './context.js';
import { CronOperations } from './cron.js';
import { JobOperations } from './jobs.js';
import { MaintenanceOperations } from './maintenance.js';
import { ProcessingOperations, type Worker } from './processing.js';
import { TokenOperations } from './tokens.js';

export type { OperationsContext } from './context.js';
export { JobHooks } from './hooks.js';
export type { JobRunOperations } from './job-run.js';
export type { ProcessingOperations, Worker } from './processing.js';

/** @internal Every operation of one queue, over one shared context. */
export class QueueOperations {
  readonly jobs: JobOperations;
  readonly maintenance: MaintenanceOperations;
  readonly cron: CronOperations;
  readonly tokens: TokenOperations;

  constructor(private readonly ctx: OperationsContext) {
    this.jobs = new JobOperations(ctx);
    this.maintenance = new MaintenanceOperations(ctx);
    this.cron = new CronOperations(ctx);
    this.tokens = new TokenOperations(ctx);
  }

  /** Processing operations recording for one processor's worker id. */
  processing(worker: Worker): ProcessingOperations {
    return new ProcessingOperations(this.ctx, this.tokens, worker);
  }
}
