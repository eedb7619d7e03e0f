/**
 * The deadline of one in-process handler run (SPEC §4.6 timeout rules). Real time, not the
 * queue's clock: a handler's running time is what a timeout limits.
 */

/** Runs when the deadline passes, before the abort; a returned number extends it by that many ms. */
// eslint-disable-next-line @typescript-eslint/no-invalid-void-type -- `void` accepts a callback that returns nothing, such as `() => { log(); }`
export type TimeoutCallback = () => number | void | undefined;

/** setTimeout fires at once for delays above 2^31 - 1 ms; longer waits are chained. */
const MAX_TIMER_MS = 2_147_483_647;

export class JobDeadline {
  private timer: NodeJS.Timeout | undefined;
  private expiresAt: number | null = null;
  private readonly callbacks: TimeoutCallback[] = [];
  private settled = false;

  /** The deadline was moved by prolong or an onTimeout extension after it was first set. */
  moved = false;

  constructor(
    timeoutMs: number | null,
    /** Called when an onTimeout callback extends the deadline, to record it like a prolong. */
    private readonly onExtended: (ms: number) => void,
    private readonly report: (error: Error) => void,
    /**
     * Called once the deadline has passed for good (no callback extended it), in a microtask of
     * its own. A callback rather than a promise: every run has a deadline, and almost none expires.
     */
    private readonly onExpired: () => void,
  ) {
    this.reset(timeoutMs);
    this.moved = false;
  }

  /** Sets the deadline to `ms` from now; null removes it. */
  reset(ms: number | null): void {
    if (this.settled) return;
    this.moved = true;
    this.expiresAt = ms === null ? null : Date.now() + ms;
    this.schedule();
  }

  onTimeout(callback: TimeoutCallback): void {
    this.callbacks.push(callback);
  }

  /**
   * The deadline has passed although its timer has not fired: the event loop was blocked (by
   * the handler or by other code) past it. False once the run ended or a wait stopped it.
   */
  overdue(): boolean {
    return !this.settled && this.expiresAt !== null && Date.now() >= this.expiresAt;
  }

  /** The run ended: no timeout will fire. */
  stop(): void {
    this.settled = true;
    clearTimeout(this.timer);
  }

  private schedule(): void {
    clearTimeout(this.timer);
    if (this.expiresAt === null) return;
    const wait = Math.min(Math.max(0, this.expiresAt - Date.now()), MAX_TIMER_MS);
    this.timer = setTimeout(() => this.fire(), wait);
  }

  private fire(): void {
    if (this.settled || this.expiresAt === null) return;
    if (Date.now() < this.expiresAt) {
      this.schedule();
      return;
    }
    let extension = 0;
    for (const callback of this.callbacks) {
      try {
        const result = callback();
        if (typeof result === 'number' && Number.isFinite(result) && result > 0)
          extension = Math.max(extension, result);
      } catch (err) {
        // A throwing callback counts as "no extension": the timeout proceeds.
        this.report(err instanceof Error ? err : new Error(`an onTimeout callback threw: ${String(err)}`));
      }
    }
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- a callback may have settled the deadline
    if (this.settled) return;
    // A callback may itself have called ctx.prolong(): honour the deadline it set.
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- a callback may have called ctx.prolong()
    if (this.expiresAt === null) return;
    if (extension === 0 && this.expiresAt > Date.now()) {
      this.schedule();
      return;
    }
    if (extension > 0) {
      this.reset(extension);
      this.onExtended(extension);
      return;
    }
    this.settled = true;
    queueMicrotask(this.onExpired);
  }
}
