/**
 * Public types of the queue's overview: job counts per status and per job type
 * (`queue.getJobCounts()`), and completed and failed attempts per minute
 * (`queue.getThroughput()`).
 */
import type { JobStatus } from './types.js';

/** Options of `queue.getJobCounts()`. */
export interface JobCountsOptions {
  /**
   * The most jobs counted per status: a status holding at least this many is reported with this
   * count and listed in `atLeast`. The work of a call grows with it, not with the number of jobs
   * stored. An integer from 1 to 100,000.
   * @default 10000
   * @example await queue.getJobCounts({ limit: 1000 })
   */
  limit?: number | undefined;
}

/** The counts of one job type, per status: see JobCounts.byJobType. */
export interface JobTypeCounts {
  jobType: string;
  /** Every status, 0 when none of the jobs counted has it. */
  counts: Record<JobStatus, number>;
}

/** What `queue.getJobCounts()` returns. */
export interface JobCounts {
  /** Jobs per status (every status, 0 when none), each at most `limit`. */
  byStatus: Record<JobStatus, number>;
  /**
   * The statuses whose count reached `limit`: they hold at least that many jobs (the page shows
   * "10,000+"), and their per-type counts cover their newest `limit` jobs only.
   */
  atLeast: JobStatus[];
  /**
   * Per job type, how many of the jobs counted in `byStatus` have it: the newest `limit` jobs of
   * each status (all of them for a status not in `atLeast`). Sorted by job type; a type with
   * no job counted is absent.
   */
  byJobType: JobTypeCounts[];
  /** The cap applied to each status. */
  limit: number;
}

/** Options of `queue.getThroughput()`. */
export interface ThroughputOptions {
  /**
   * How many minutes to report, the current one included: an integer from 1 to 60.
   * @default 60
   * @example await queue.getThroughput({ minutes: 15 })
   */
  minutes?: number | undefined;
}

/** The attempts that ended in one minute: see `queue.getThroughput()`. */
export interface ThroughputMinute {
  /** The start of the minute (whole minutes of the queue's clock, UTC). */
  minute: Date;
  /** Jobs completed in that minute. */
  completed: number;
  /**
   * Attempts that failed in that minute: handler errors, timeouts and jobs without a handler,
   * whether a retry follows or not, and stuck jobs the supervisor reclaimed.
   */
  failed: number;
}
