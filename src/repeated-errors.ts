/**
 * Background loops (the processor's claims and lease checks, the supervisor's tasks) retry every
 * interval. While the store is down the same failure would come back each time: it is reported
 * once, then again only when its message changes or after the task has succeeded in between.
 */
import { NotMigratedError, StoreUnavailableError } from './errors.js';
import { describeThrown } from './failure.js';

/** How deep a cause chain is searched for the store problem behind a failure. */
const MAX_CAUSE_DEPTH = 8;

export class RepeatedErrors {
  /** The failure last reported per task, until the task succeeds. */
  private readonly last = new Map<string, { message: string; cause: string }>();

  /** True when `error` of `task` should be reported: its first failure, or a different one. */
  isNew(task: string, error: Error): boolean {
    if (this.last.get(task)?.message === error.message) return false;
    this.last.set(task, { message: error.message, cause: causeOf(error) });
    return true;
  }

  /**
   * True when another task is failing now for the cause of `error`: the store behind both is
   * unreachable, or its tables are missing. A log line about that cause has been written then.
   */
  sharesCause(task: string, error: Error): boolean {
    const cause = causeOf(error);
    for (const [other, failure] of this.last) if (other !== task && failure.cause === cause) return true;
    return false;
  }

  /** `task` succeeded: its next failure is reported again. */
  recovered(task: string): void {
    this.last.delete(task);
  }
}

/**
 * What a failure comes down to, whichever task it stopped: the store problem in its cause chain
 * (the store cannot serve, for one reason; the queue's schema is not migrated), else the message
 * of what the task's error wraps.
 */
function causeOf(error: Error): string {
  let current: unknown = error;
  for (let depth = 0; depth < MAX_CAUSE_DEPTH && current instanceof Error; depth++) {
    if (current instanceof StoreUnavailableError) return `${current.code} ${current.reason}`;
    if (current instanceof NotMigratedError) return `${current.code} ${current.schema}`;
    current = current.cause;
  }
  return describeThrown(error.cause ?? error);
}
