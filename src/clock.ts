import type { Clock } from './types.js';

/** The wall clock. Backends never read time themselves; they take `now` from a Clock. */
export const systemClock: Clock = { now: () => new Date() };

/** A clock that moves only when told to; for tests. */
export class ManualClock implements Clock {
  private current: number;
  constructor(start: Date | number = Date.now()) {
    this.current = typeof start === 'number' ? start : start.getTime();
  }
  now(): Date {
    return new Date(this.current);
  }
  set(to: Date | number): void {
    this.current = typeof to === 'number' ? to : to.getTime();
  }
  advance(ms: number): void {
    this.current += ms;
  }
}
