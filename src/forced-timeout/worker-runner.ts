/**
 * Runs a `forceKillOnTimeout` handler in a worker thread and terminates the thread at the
 * job's timeout (SPEC §4.7). A terminated thread stops at once, even in a busy loop, which an
 * AbortSignal cannot achieve.
 */
import { EventEmitter } from 'node:events';
import { Worker } from 'node:worker_threads';
import { HandlerSerializationError, JobTimeoutError } from '../errors.js';
import { toError } from '../events.js';
import type { HandlerContext } from '../handler-context.js';
import type { JobHandler } from '../processor-options.js';
import type { ClaimedJob } from '../backend.js';
import { validateHandlerSerializable } from './serializable.js';
import { workerProgram } from './worker-source.js';

type WorkerMessage =
  | { type: 'progress'; progress: number }
  | { type: 'output'; output: unknown }
  | { type: 'result'; ok: true; value: unknown }
  | { type: 'result'; ok: false; error: { name: string; message: string; stack?: string } };

/**
 * @internal Lifecycle of forced-termination threads: `start` and `exit` with the thread id.
 * Lets tests observe that a timed-out thread is really gone.
 */
export const forcedWorkerEvents = new EventEmitter<{ start: [threadId: number]; exit: [threadId: number] }>();

/**
 * Resolves with the handler's return value; rejects with its error, a JobTimeoutError, a
 * HandlerSerializationError, or the reason of `lost` (the thread is terminated then too).
 */
export function runInWorkerThread(input: {
  job: ClaimedJob;
  handler: JobHandler;
  ctx: HandlerContext;
  report: (error: Error) => void;
  lost: AbortSignal;
}): Promise<unknown> {
  const { job, handler, ctx, report, lost } = input;
  const check = validateHandlerSerializable(handler, job.jobType);
  if (!check.isSerializable) return Promise.reject(new HandlerSerializationError(check.error!));

  return new Promise<unknown>((resolve, reject) => {
    const worker = new Worker(workerProgram(Function.prototype.toString.call(handler)), {
      eval: true,
      workerData: { payload: job.payload },
    });
    const threadId = worker.threadId;
    forcedWorkerEvents.emit('start', threadId);
    const startedAt = Date.now();
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const onLost = () => settle(() => reject(lost.reason as Error));
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      lost.removeEventListener('abort', onLost);
      outcome();
      // Also after a result: the handler may have left timers or sockets running in the thread.
      void worker.terminate();
    };

    const timedOut = () =>
      settle(() =>
        reject(
          new JobTimeoutError(
            `Job ${job.id} (${job.jobType}) timed out after ${job.timeoutMs} ms; its worker thread was terminated`,
          ),
        ),
      );
    if (job.timeoutMs !== null) timer = setTimeout(timedOut, job.timeoutMs);
    if (lost.aborted) onLost();
    else lost.addEventListener('abort', onLost);
    worker.on('message', (message: WorkerMessage) => {
      if (message.type === 'progress') void ctx.setProgress(message.progress);
      else if (message.type === 'output') relayOutput(ctx, message.output, report);
      // This thread's event loop may have been blocked past the deadline, delaying the timer:
      // a result that arrives after the deadline is still a timeout.
      else if (job.timeoutMs !== null && Date.now() - startedAt >= job.timeoutMs) timedOut();
      else if (message.ok) settle(() => resolve(message.value));
      else settle(() => reject(rebuildError(message.error)));
    });
    worker.on('error', (err) => settle(() => reject(toError(err))));
    worker.on('exit', (code) => {
      forcedWorkerEvents.emit('exit', threadId);
      settle(() =>
        reject(new Error(`The worker thread of job ${job.id} exited with code ${code} before the handler returned`)),
      );
    });
  });
}

function relayOutput(ctx: HandlerContext, output: unknown, report: (error: Error) => void): void {
  try {
    void ctx.setOutput(output);
  } catch (err) {
    // In-process the handler would see this throw; from a thread it can only be reported.
    report(toError(err, 'ctx.setOutput in a worker thread'));
  }
}

function rebuildError(e: { name: string; message: string; stack?: string }): Error {
  const error = new Error(e.message);
  error.name = e.name;
  if (e.stack) error.stack = e.stack;
  return error;
}
