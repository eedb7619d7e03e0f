/**
 * The cron page's JSON routes: the schedules with their next run and last job, and the actions
 * pause, resume, trigger now and edit the expression, each one queue call (SPEC §4.4). The
 * router (index.ts) applies read-only refusal and the same-origin check to every POST here.
 */
import { checkKnownKeys } from '../checks.js';
import { requireCronExpression, requireTimezone } from '../cron.js';
import { ValidationError } from '../errors.js';
import type { JobStatus } from '../types.js';
import { integerParam, parseJobId } from './api.js';
import type { ResolvedDashboardConfig } from './config.js';
import { summarizeSchedule } from './cron-summary.js';
import { jsonResponse } from './http.js';
import { readJsonBody, type Route, type RouteDef, type RouteInput } from './route.js';

type Queue = ResolvedDashboardConfig['queue'];

/** Schedules per GET /api/cron when the request gives no `limit`. */
const DEFAULT_CRON_PAGE_SIZE = 100;
/** Largest `limit` GET /api/cron accepts: each listed schedule reads its last job. */
const MAX_CRON_PAGE_SIZE = 200;

const EDIT_KEYS = ['cronExpression', 'timezone'] as const;

function notFound(id: number): Response {
  return jsonResponse(404, { error: `Cron schedule ${id} not found` });
}

/**
 * A route acting on the schedule of its `:id`: the id is parsed (400 naming `id`), and the
 * queue's NotFoundError (checked by code, as errors.ts does) becomes a 404.
 */
function scheduleRoute(run: (input: RouteInput, scheduleId: number) => Promise<Response>): Route {
  return async (input) => {
    const scheduleId = parseJobId(input.id);
    try {
      return await run(input, scheduleId);
    } catch (err) {
      if ((err as { code?: unknown } | null)?.code === 'NOT_FOUND') return notFound(scheduleId);
      throw err;
    }
  };
}

async function lastJobStatus(queue: Queue, jobId: number | null): Promise<JobStatus | null> {
  return jobId === null ? null : ((await queue.getJob(jobId))?.status ?? null);
}

/** GET /api/cron?limit&offset → 200 { schedules: CronSummary[], hasMore }, in id order. */
async function listSchedules({ queue }: ResolvedDashboardConfig, params: URLSearchParams): Promise<Response> {
  const limit = integerParam('limit', params.get('limit'), 1, MAX_CRON_PAGE_SIZE, DEFAULT_CRON_PAGE_SIZE);
  const offset = integerParam('offset', params.get('offset'), 0, Number.MAX_SAFE_INTEGER, 0);
  const all = await queue.listCronJobs();
  const page = all.slice(offset, offset + limit);
  // One read per listed schedule's last job, at most `limit`.
  const statuses = await Promise.all(page.map((s) => lastJobStatus(queue, s.lastJobId)));
  return jsonResponse(200, {
    schedules: page.map((s, i) => summarizeSchedule(s, statuses[i]!)),
    hasMore: all.length > offset + limit,
  });
}

/** POST /api/cron/:id/pause → 200 { ok: true } | 404. Pausing a paused schedule is a no-op. */
const pause = scheduleRoute(async ({ config }, id) => {
  await config.queue.pauseCronJob(id);
  return jsonResponse(200, { ok: true });
});

/** POST /api/cron/:id/resume → 200 { ok: true } | 404. The next run is computed from now. */
const resume = scheduleRoute(async ({ config }, id) => {
  await config.queue.resumeCronJob(id);
  return jsonResponse(200, { ok: true });
});

/**
 * POST /api/cron/:id/trigger → 200 { ok: true, jobId } | 404 | 409 { ok: false, error } when
 * the schedule refuses overlap and its last job is still active (queue.triggerCronJob).
 */
const trigger = scheduleRoute(async ({ config: { queue } }, id) => {
  const jobId = await queue.triggerCronJob(id);
  if (jobId !== null) return jsonResponse(200, { ok: true, jobId });
  const schedule = await queue.getCronJob(id);
  if (!schedule) return notFound(id);
  const status = await lastJobStatus(queue, schedule.lastJobId);
  return jsonResponse(409, {
    ok: false,
    error:
      `Schedule ${schedule.scheduleName} does not allow overlap and its last job ` +
      `#${schedule.lastJobId} is still ${status ?? 'active'}: no job was enqueued`,
  });
});

/**
 * POST /api/cron/:id/edit with { cronExpression, timezone? } → 200 { ok: true, nextRunAt } |
 * 400 naming the field | 404. The next run is recomputed from now (queue.editCronJob).
 */
const edit = scheduleRoute(async ({ config: { queue }, request }, id) => {
  const body = await readJsonBody(request);
  checkKnownKeys(ValidationError, 'body', body, EDIT_KEYS, 'cron schedule edits');
  const updates: { cronExpression: string; timezone?: string } = {
    cronExpression: requireCronExpression('cronExpression', body.cronExpression),
  };
  if (body.timezone !== undefined) updates.timezone = requireTimezone('timezone', body.timezone);
  await queue.editCronJob(id, updates);
  const schedule = await queue.getCronJob(id);
  if (!schedule) return notFound(id);
  return jsonResponse(200, { ok: true, nextRunAt: schedule.status === 'active' ? schedule.nextRunAt : null });
});

/** The cron page's routes, relative to basePath; `:id` is a schedule id. */
export const cronRoutes: RouteDef[] = [
  { pattern: /^\/api\/cron$/, GET: ({ config, params }) => listSchedules(config, params) },
  { pattern: /^\/api\/cron\/([^/]+)\/pause$/, POST: pause },
  { pattern: /^\/api\/cron\/([^/]+)\/resume$/, POST: resume },
  { pattern: /^\/api\/cron\/([^/]+)\/trigger$/, POST: trigger },
  { pattern: /^\/api\/cron\/([^/]+)\/edit$/, POST: edit },
];
