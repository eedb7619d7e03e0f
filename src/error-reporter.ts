/**
 * The errors of one processor or supervisor, told through the queue (QueueEvents.reportError):
 * to its `onError` and the queue's `error` listeners, or, when there is neither, to the queue's
 * log. A failure of a background task that repeats every interval is told once (RepeatedErrors),
 * and a debug line says when it comes back. The log gets one line per cause: a second task
 * failing for the cause of another (the store is down, its tables are missing) adds none.
 */
import type { QueueEvents } from './events.js';
import type { Log } from './log.js';
import { RepeatedErrors } from './repeated-errors.js';

export class ErrorReporter {
  private readonly repeated = new RepeatedErrors();

  /**
   * @param source leads the log lines (`processor <workerId>`); undefined when the errors'
   *   messages say who reports them.
   * @param log the queue's log with the reporter's `verbose`, for the debug lines.
   */
  constructor(
    private readonly events: QueueEvents,
    private readonly log: Log,
    private readonly source: string | undefined,
    private readonly onError: ((error: Error) => void) | undefined,
  ) {}

  /** One error. `thrown`: the caller gets it thrown as well, so the log gets no line for it. */
  report(error: Error, thrown = false): void {
    this.events.reportError(error, { onError: this.onError, source: this.source, logged: !thrown });
  }

  /** A failure of `task`, which runs again every interval: told while it is new. */
  taskFailed(task: string, error: Error): void {
    if (this.repeated.isNew(task, error)) {
      this.events.reportError(error, {
        onError: this.onError,
        source: this.source,
        logged: !this.repeated.sharesCause(task, error),
      });
    } else {
      const lead = this.source === undefined ? '' : `${this.source}: `;
      this.log.debug(`${lead}${error.message} (again)`, { error });
    }
  }

  /** `task` succeeded: its next failure is told again. */
  taskSucceeded(task: string): void {
    this.repeated.recovered(task);
  }
}
