/**
 * Runs one claimed job's handler and classifies the outcome (SPEC §4.6, §4.7). Writing the
 * outcome to the store is the processor's part.
 */
import { JobLostError, JobTimeoutError, NoHandlerError } from './errors.js';
import { toError } from './events.js';
import { runInWorkerThread } from './forced-timeout/worker-runner.js';
import { HandlerContext, type ContextDeps } from './handler-context.js';
import type { RunLoss } from './held-runs.js';
import { JobDeadline } from './job-deadline.js';
import type { JobHandler } from './processor-options.js';
import type { ClaimedJob } from './backend.js';
import type { FailureReason } from './types.js';
import { requireJson } from './validation.js';

export type RunOutcome = (
  | { status: 'completed'; hasOutput: boolean; output?: unknown }
  /** The handler entered a wait: the job is `waiting` in the store already. */
  | { status: 'waiting' }
  | { status: 'failed'; error: Error; reason: FailureReason }
  /** The job stopped being this worker's while the handler ran: nothing may be written for it. */
  | { status: 'lost'; error: JobLostError }
) & {
  /**
   * Present when the run was given up (timeout, lost job) while the handler's code still runs:
   * settles when it returns. Such a handler holds no concurrency slot.
   */
  abandoned?: Promise<void>;
};

/** `lost` fires, with a JobLostError as its reason, when the job is found to be no longer ours. */
export async function runJob(
  job: ClaimedJob,
  handler: JobHandler | undefined,
  deps: ContextDeps,
  lost: RunLoss,
): Promise<RunOutcome> {
  if (!handler) {
    return {
      status: 'failed',
      reason: 'no_handler',
      error: new NoHandlerError(
        `No handler is registered for job type "${job.jobType}" (job ${job.id}): ` +
          `give createProcessor a handler for it, or leave it out of the processor's jobType option`,
      ),
    };
  }
  if (job.forceKillOnTimeout) return runForced(job, handler, deps, lost);
  return runInProcess(job, handler, deps, lost);
}

async function runInProcess(
  job: ClaimedJob,
  handler: JobHandler,
  deps: ContextDeps,
  lost: RunLoss,
): Promise<RunOutcome> {
  const controller = new AbortController();
  // The ends that do not wait for the handler: its deadline, or the loss of the job. One promise
  // for both (the first settles it): every run pays for it, and almost none ends this way.
  let interrupt!: (outcome: RunOutcome) => void;
  const interrupted = new Promise<RunOutcome>((resolve) => (interrupt = resolve));
  const deadline = new JobDeadline(
    job.timeoutMs,
    (ms) => ctx.recordProlong(ms),
    deps.report,
    () => interrupt(timeout()),
  );
  const ctx = new HandlerContext(deps, deadline);
  const startedAt = Date.now();
  const timeout = (): RunOutcome => {
    const error = new JobTimeoutError(
      deadline.moved
        ? `Job ${job.id} (${job.jobType}) timed out after ${Date.now() - startedAt} ms (its deadline was moved by prolong or onTimeout)`
        : `Job ${job.id} (${job.jobType}) timed out after ${job.timeoutMs} ms`,
    );
    controller.abort(error);
    return { status: 'failed', reason: 'timeout', error };
  };
  lost.onAbort((error) => {
    controller.abort(error);
    // A job that just entered a wait is no longer processing, but that run ended as a wait.
    interrupt(ctx.waiting ? { status: 'waiting' } : { status: 'lost', error });
  });
  // Widened to boolean: the run below sets it, which narrowing cannot see.
  let handlerReturned = false as boolean;
  const finished = (async (): Promise<RunOutcome> => {
    try {
      const value = await handler(job.payload, controller.signal, ctx);
      handlerReturned = true;
      // Code that blocks the event loop keeps the deadline's timer from firing: a result that
      // arrives after the deadline is still a timeout.
      if (deadline.overdue()) return timeout();
      await ctx.idle();
      // A handler that swallowed the wait signal still ends as a wait: the store says waiting.
      return ctx.waiting ? { status: 'waiting' } : completion(ctx, value, job, deps);
    } catch (err) {
      handlerReturned = true;
      if (ctx.waiting) return { status: 'waiting' };
      if (deadline.overdue()) return timeout();
      return { status: 'failed', reason: 'handler_error', error: toError(err) };
    }
  })();
  try {
    // A handler that ignores the abort keeps running, but the job fails at the deadline.
    const outcome = await Promise.race([finished, interrupted]);
    if (handlerReturned) return outcome;
    return { ...outcome, abandoned: finished.then(() => undefined) };
  } finally {
    deadline.stop();
  }
}

async function runForced(job: ClaimedJob, handler: JobHandler, deps: ContextDeps, lost: RunLoss): Promise<RunOutcome> {
  // prolong and onTimeout do nothing in this mode (SPEC §4.7 rule 3); progress and output are relayed.
  const ctx = new HandlerContext(deps, null);
  try {
    // A lost job terminates the thread, as a timeout does.
    const aborter = new AbortController();
    lost.onAbort((error) => aborter.abort(error));
    const result = await runInWorkerThread({ job, handler, ctx, report: deps.report, lost: aborter.signal });
    // Relayed progress and output were sent before the result; let their writes land first.
    await ctx.idle();
    return completion(ctx, result, job, deps);
  } catch (err) {
    if (err instanceof JobLostError) return { status: 'lost', error: err };
    const error = toError(err);
    return { status: 'failed', reason: error instanceof JobTimeoutError ? 'timeout' : 'handler_error', error };
  }
}

/** The return value is the output unless ctx.setOutput was used (DETAILS "Handler context"). */
function completion(ctx: HandlerContext, value: unknown, job: ClaimedJob, deps: ContextDeps): RunOutcome {
  if (ctx.outputSet) return { status: 'completed', hasOutput: true, output: ctx.output };
  if (value === undefined) return { status: 'completed', hasOutput: false };
  try {
    requireJson('output', value);
  } catch (err) {
    // The work is done: completing without the output beats re-running side effects.
    deps.report(toError(err, `the return value of job ${job.id} (${job.jobType}) was not stored`));
    return { status: 'completed', hasOutput: false };
  }
  return { status: 'completed', hasOutput: true, output: value };
}
