/**
 * The queue's overview, worked out once for both backends: what a backend reports for
 * getJobCounts and getThroughput (facts) becomes the public JobCounts and ThroughputMinute[]
 * here, and the minutes the throughput counters are kept by are defined here.
 *
 * Throughput counters: every statement or script that completes jobs or records failed
 * attempts adds them to a counter of the minute of its `now` (whole minutes since the epoch),
 * in the same write. The counters of minutes older than THROUGHPUT_KEEP_MINUTES are removed
 * (PostgreSQL: by the supervisor; Redis: by the scripts themselves, see includes/throughput.lua).
 */
import type { JobCounts, JobTypeCounts, ThroughputMinute } from './overview-types.js';
import { JOB_STATUSES, type JobStatus } from './types.js';
import { THROUGHPUT_MINUTES } from './validation.js';

export const MINUTE_MS = 60_000;

/** Minutes of counters kept: the hour reported, and one more for a read that spans a minute's turn. */
export const THROUGHPUT_KEEP_MINUTES = THROUGHPUT_MINUTES + 1;

/** What a backend reports for getJobCounts. */
export interface JobCountFacts {
  /** Jobs per status, each at most `limit`; a status absent has none. */
  byStatus: Partial<Record<JobStatus, number>>;
  /** Among the newest `limit` jobs of each status, how many have each job type. */
  byType: { status: JobStatus; jobType: string; count: number }[];
}

/** What a backend reports for getThroughput: the minutes (their start) that have a counter. */
export type ThroughputFacts = ThroughputMinute[];

function zeroCounts(): Record<JobStatus, number> {
  return Object.fromEntries(JOB_STATUSES.map((s) => [s, 0])) as Record<JobStatus, number>;
}

/** The public JobCounts of a backend's facts, counted with `limit`. */
export function toJobCounts(facts: JobCountFacts, limit: number): JobCounts {
  const byStatus = zeroCounts();
  for (const status of JOB_STATUSES) byStatus[status] = Math.min(facts.byStatus[status] ?? 0, limit);
  const types = new Map<string, JobTypeCounts>();
  for (const { status, jobType, count } of facts.byType) {
    let entry = types.get(jobType);
    if (!entry) types.set(jobType, (entry = { jobType, counts: zeroCounts() }));
    entry.counts[status] += count;
  }
  // Code unit order, whatever the database's collation: the same list on both backends.
  const byJobType = [...types.values()].sort((a, b) => (a.jobType < b.jobType ? -1 : a.jobType > b.jobType ? 1 : 0));
  return { byStatus, atLeast: JOB_STATUSES.filter((s) => byStatus[s] >= limit), byJobType, limit };
}

/** The start of the minute holding `time`, in ms since the epoch. */
export function minuteStart(time: Date): number {
  return Math.floor(time.getTime() / MINUTE_MS) * MINUTE_MS;
}

/** The minutes getThroughput reads at `now`: the last `minutes` whole minutes, the current one included. */
export function throughputWindow(now: Date, minutes: number): { from: Date; to: Date } {
  const to = minuteStart(now);
  return { from: new Date(to - (minutes - 1) * MINUTE_MS), to: new Date(to) };
}

/** Counters of minutes before this time may go. */
export function throughputCutoff(now: Date): Date {
  return new Date(minuteStart(now) - (THROUGHPUT_KEEP_MINUTES - 1) * MINUTE_MS);
}

/** One entry per minute of the window, oldest first, 0 for the minutes without a counter. */
export function fillMinutes(facts: ThroughputFacts, window: { from: Date; to: Date }): ThroughputMinute[] {
  const found = new Map(facts.map((f) => [f.minute.getTime(), f]));
  const out: ThroughputMinute[] = [];
  for (let t = window.from.getTime(); t <= window.to.getTime(); t += MINUTE_MS) {
    const f = found.get(t);
    out.push({ minute: new Date(t), completed: f?.completed ?? 0, failed: f?.failed ?? 0 });
  }
  return out;
}
