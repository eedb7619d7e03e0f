/**
 * Background loops (the processor's claims and lease checks, the supervisor's tasks) retry every
 * interval. While the store is down the same failure would come back each time: it is reported
 * once, then again only when its message changes or after the task has succeeded in between.
 */
export class RepeatedErrors {
  /** The message last reported per task, until the task succeeds. */
  private readonly last = new Map<string, string>();

  /** True when `error` of `task` should be reported: its first failure, or a different one. */
  isNew(task: string, error: Error): boolean {
    if (this.last.get(task) === error.message) return false;
    this.last.set(task, error.message);
    return true;
  }

  /** `task` succeeded: its next failure is reported again. */
  recovered(task: string): void {
    this.last.delete(task);
  }
}
