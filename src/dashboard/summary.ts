/**
 * What GET /api/jobs sends per job: the fields a list row can show, without the job's data.
 * Payload, output, step data and the error history can each be megabytes, and the page
 * reloads the list every 3 seconds with auto-refresh; GET /api/jobs/:id sends the full record.
 */
import type { JobHoldReason, JobRecord } from '../types.js';

/** Longest `lastError` in a summary; the detail route has the full error history. */
export const LAST_ERROR_MAX_LENGTH = 200;

/**
 * A job in the list. Fields are picked one by one, so a field added to JobRecord later stays
 * out of the list until someone decides it belongs there.
 */
export interface JobSummary {
  id: number;
  jobType: string;
  status: JobRecord['status'];
  priority: number;
  attempts: number;
  maxAttempts: number;
  progress: number | null;
  tags: string[];
  pendingReason: string | null;
  failureReason: JobRecord['failureReason'];
  /** The message of the latest error history entry, cut to LAST_ERROR_MAX_LENGTH characters. */
  lastError: string | null;
  runAt: Date;
  /**
   * Why a pending job waits at its run time (`scheduled`, `dependencies`, `group`) or `due`;
   * null for other statuses (queue.getHoldReasons).
   */
  holdReason: JobHoldReason | null;
  createdAt: Date;
  updatedAt: Date;
  startedAt: Date | null;
  completedAt: Date | null;
  nextAttemptAt: Date | null;
  waitUntil: Date | null;
}

/** `text` cut to `max` characters with an ellipsis, never between the halves of a surrogate pair. */
function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  if (/[\uD800-\uDBFF]/.test(text.charAt(end - 1))) end--;
  return `${text.slice(0, end)}…`;
}

/** The list's summary of `job`; `holdReason` as getHoldReasons gave it for this job (pending only). */
export function summarizeJob(job: JobRecord, holdReason: JobHoldReason | null = null): JobSummary {
  const last = job.errorHistory.at(-1)?.message;
  return {
    id: job.id,
    jobType: job.jobType,
    status: job.status,
    priority: job.priority,
    attempts: job.attempts,
    maxAttempts: job.maxAttempts,
    progress: job.progress,
    tags: job.tags,
    pendingReason: job.pendingReason,
    failureReason: job.failureReason,
    lastError: last === undefined ? null : truncate(last, LAST_ERROR_MAX_LENGTH),
    runAt: job.runAt,
    holdReason,
    createdAt: job.createdAt,
    updatedAt: job.updatedAt,
    startedAt: job.startedAt,
    completedAt: job.completedAt,
    nextAttemptAt: job.nextAttemptAt,
    waitUntil: job.waitUntil,
  };
}
