/**
 * What GET /api/cron sends per schedule: the fields a row of the cron page shows, with the
 * status of the schedule's last job. The payload and job options stay out, as the job list
 * leaves job data out (summary.ts).
 */
import type { CronScheduleRecord, JobStatus } from '../types.js';

/** The last job a schedule enqueued, as the cron page links to it. */
export interface CronLastJob {
  id: number;
  /** Null when the job no longer exists (removed by cleanup). */
  status: JobStatus | null;
}

/** A schedule in the cron page's list. Fields are picked one by one, as in JobSummary. */
export interface CronSummary {
  id: number;
  scheduleName: string;
  cronExpression: string;
  timezone: string;
  jobType: string;
  status: CronScheduleRecord['status'];
  allowOverlap: boolean;
  /**
   * When the next job is due: the slot the cron parser computed at the schedule's last
   * enqueue, edit or resume. Null while paused (resuming computes a new one from then). A
   * time in the past means the slot is due and waits for a processor's next check.
   */
  nextRunAt: Date | null;
  lastEnqueuedAt: Date | null;
  lastJob: CronLastJob | null;
}

export function summarizeSchedule(s: CronScheduleRecord, lastJobStatus: JobStatus | null): CronSummary {
  return {
    id: s.id,
    scheduleName: s.scheduleName,
    cronExpression: s.cronExpression,
    timezone: s.timezone,
    jobType: s.jobType,
    status: s.status,
    allowOverlap: s.allowOverlap,
    nextRunAt: s.status === 'active' ? s.nextRunAt : null,
    lastEnqueuedAt: s.lastEnqueuedAt,
    lastJob: s.lastJobId === null ? null : { id: s.lastJobId, status: lastJobStatus },
  };
}
