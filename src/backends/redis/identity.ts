/**
 * The identity of a queue's Redis store. A Redis restarted without persistence, a FLUSHDB or
 * deleted keys leave an empty store behind the queue's back; the id counter starts again at 1
 * and `getJob(1)` would return another job than the one the application stored.
 *
 * So the store carries an identity key, `meta` (a random store id and its creation time),
 * written on first use (identify-store.lua). The queue remembers the id it found; every script
 * that allocates ids or writes jobs (the ones declaring the `meta` key: adding jobs, claims,
 * failures, reclaim, cron) receives it as its last ARGV and compares it first, one HGET
 * (includes/store.lua). A different or missing id stops the script before any write.
 *
 * The queue then reports a StoreResetError once (the `error` event, else its log), adopts
 * the store as it is now (creating its identity if missing) while raising the id counters to
 * at least the highest job and schedule ids this process had seen, and runs the script again.
 * What was stored before the wipe is gone either way; ids never repeat within what this
 * process saw (a process started after the wipe cannot know the old ids).
 */
import { randomUUID } from 'node:crypto';
import { StoreResetError } from '../../errors.js';
import type { Clock } from '../../types.js';
import { scripts } from './lua.generated.js';
import type { ScriptName, ScriptRunner } from './scripts.js';

/** The reply error of includes/store.lua: `QUEUEDEV_STORE_RESET <found id, or - when none>`. */
const RESET_REPLY = /^QUEUEDEV_STORE_RESET (\S+)/;

/** Scripts that check the store id: exactly those declaring the `meta` key, but the identity script itself. */
const CHECKED = new Set(
  Object.values(scripts)
    .filter((s) => s.keys.includes('meta') && s.name !== 'identifyStore')
    .map((s) => s.name as ScriptName),
);

/** The store id a reset reply found (null: none), or undefined when `err` is not that reply. */
export function resetReplyFound(err: unknown): string | null | undefined {
  const match = RESET_REPLY.exec((err as { message?: unknown } | null)?.message as string);
  if (!match) return undefined;
  return match[1] === '-' ? null : match[1]!;
}

export class StoreIdentity {
  private storeId: string | undefined;
  private identifying: Promise<string> | undefined;
  /** Set when a reset was detected, until the store is adopted and the reset reported. */
  private lost: { expected: string; found: string | null } | undefined;
  private highestJobId = 0;
  private highestScheduleId = 0;
  /** Set by createRedisBackend before the first call: the queue's reporter. */
  private report: (error: Error) => void = () => undefined;

  constructor(
    private readonly raw: ScriptRunner,
    private readonly clock: Clock,
    private readonly describeStore: string,
  ) {}

  /** Where a detected reset is reported (the queue's `error` event and console). */
  setReporter(report: (error: Error) => void): void {
    this.report = report;
  }

  sawJobIds(ids: Iterable<number | null>): void {
    for (const id of ids) if (id !== null && id > this.highestJobId) this.highestJobId = id;
  }

  sawScheduleIds(ids: Iterable<number>): void {
    for (const id of ids) if (id > this.highestScheduleId) this.highestScheduleId = id;
  }

  /** A runner passing the store id to the checked scripts, recovering once from a reset. */
  runner(): ScriptRunner {
    return async <T>(name: ScriptName, args: (string | number)[]): Promise<T> => {
      if (!CHECKED.has(name)) return this.raw<T>(name, args);
      // Known once the store was identified: no wait then, as on every call but the first.
      const expected = this.storeId ?? (await this.current());
      try {
        return await this.raw<T>(name, [...args, expected]);
      } catch (err) {
        const found = resetReplyFound(err);
        if (found === undefined) throw err;
        if (this.storeId === expected) {
          this.storeId = undefined;
          this.lost ??= { expected, found };
        }
        // A second reset in between propagates, translated to StoreResetError (store-errors.ts).
        return this.raw<T>(name, [...args, await this.current()]);
      }
    };
  }

  private current(): Promise<string> {
    if (this.storeId !== undefined) return Promise.resolve(this.storeId);
    this.identifying ??= this.identify().finally(() => {
      this.identifying = undefined;
    });
    return this.identifying;
  }

  private async identify(): Promise<string> {
    const [storeId, lastJobId, lastScheduleId] = await this.raw<[string, number, number]>('identifyStore', [
      randomUUID(),
      this.clock.now().getTime(),
      this.highestJobId,
      this.highestScheduleId,
    ]);
    this.storeId = storeId;
    this.sawJobIds([lastJobId]);
    this.sawScheduleIds([lastScheduleId]);
    const lost = this.lost;
    this.lost = undefined;
    if (lost) this.report(this.resetError(lost));
    return storeId;
  }

  private resetError({ expected, found }: { expected: string; found: string | null }): StoreResetError {
    const what =
      found === null ? 'its identity key is gone' : `its identity key holds store id ${found} instead of ${expected}`;
    return new StoreResetError(
      `The Redis store ${this.describeStore} is not the one this queue was using: ${what}. It was wiped or replaced ` +
        '(a restart without persistence, FLUSHDB or FLUSHALL, deleted keys), so the jobs, schedules and tokens stored before are lost. ' +
        `The queue carries on with job ids above ${this.highestJobId} and schedule ids above ${this.highestScheduleId}, ` +
        'the highest it had seen, so it never hands out an id twice. Enable persistence (appendonly yes) to keep jobs across restarts.',
      { expected, found },
    );
  }
}
