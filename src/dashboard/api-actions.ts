/**
 * The dashboard's routes that act on jobs beyond a single cancel or retry: a count of the jobs
 * a list filter matches (for the confirmation of a bulk action), retrying every failed job and
 * cancelling every pending job of that filter, deleting a finished job, and editing a pending
 * job's payload, priority and run time. The router (index.ts) already refuses every POST of a
 * read-only dashboard and every cross-origin POST.
 */
import { describeValue, ValidationError } from '../errors.js';
import { INT32_MAX, INT32_MIN } from '../checks.js';
import type { EditJobOptions, JobFilter, JobQueryFilter, JobStatus } from '../types.js';
import { requireDate, requireInteger } from '../validation.js';
import { parseJobFilter, parseJobId } from './api.js';
import type { ResolvedDashboardConfig } from './config.js';
import { jsonResponse } from './http.js';
import { readJsonBody, type RouteDef } from './route.js';

/** The most jobs GET /api/jobs/count counts; past it the answer is "at least this many". */
export const COUNT_LIMIT = 10_000;

/** Fields of POST /api/jobs/:id/edit. */
const EDIT_FIELDS = ['payload', 'priority', 'runAt'] as const;

/** An ISO 8601 date and time with its offset: the page sends what the operator picked, in UTC. */
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * GET /api/jobs/count?status&jobType... → 200 { count, capped }: how many jobs the list's filter
 * matches, counted no further than COUNT_LIMIT (`capped`: there are more).
 */
async function countJobs({ queue }: ResolvedDashboardConfig, params: URLSearchParams): Promise<Response> {
  const found = await queue.countJobs(selectingFilter(params), COUNT_LIMIT + 1);
  return jsonResponse(200, { count: Math.min(found, COUNT_LIMIT), capped: found > COUNT_LIMIT });
}

/**
 * The list's filter as one that selects every job it matches: without `q`, whose payload search
 * reads only the newest jobs (JobQueryFilter.payloadContains), so it cannot select them all.
 */
function selectingFilter(params: URLSearchParams): JobQueryFilter {
  const filter = parseJobFilter(params);
  if (filter.payloadContains !== undefined) {
    throw new ValidationError(
      'q',
      `Expected no \`q\` on a count or bulk action: a payload search reads only the newest jobs, so it cannot select every job it matches; got ${describeValue(filter.payloadContains)}`,
    );
  }
  return filter;
}

/**
 * The list's filter for a bulk action on the jobs in `status`: its `status`, when given, must be
 * that one (the action touches no other), and is left out of the queue's job filter.
 */
function bulkFilter(params: URLSearchParams, status: JobStatus): JobFilter {
  const { status: listed, ...filter }: JobQueryFilter = selectingFilter(params);
  if (listed !== undefined && listed !== status) {
    throw new ValidationError(
      'status',
      `Expected \`status\` to be absent or ${describeValue(status)} for this action, got ${describeValue(listed)}`,
    );
  }
  return filter;
}

/** POST /api/jobs/retry-failed?jobType... → 200 { count }: every failed job of the filter retried. */
async function retryFailed({ queue }: ResolvedDashboardConfig, params: URLSearchParams): Promise<Response> {
  return jsonResponse(200, { count: await queue.retryAllFailedJobs(bulkFilter(params, 'failed')) });
}

/** POST /api/jobs/cancel-pending?jobType... → 200 { count }: every pending job of the filter cancelled. */
async function cancelPending({ queue }: ResolvedDashboardConfig, params: URLSearchParams): Promise<Response> {
  return jsonResponse(200, { count: await queue.cancelAllUpcomingJobs(bulkFilter(params, 'pending')) });
}

function notFound(id: number): Response {
  return jsonResponse(404, { error: `Job ${id} not found` });
}

/**
 * POST /api/jobs/:id/delete → 200 { ok: true } | 404 | 409 { ok: false, error } (a job that has
 * not finished: the queue's JobStatusError, naming its status).
 */
async function deleteJob({ queue }: ResolvedDashboardConfig, id: number): Promise<Response> {
  try {
    await queue.deleteJob(id);
  } catch (err) {
    // By code, not class: a separately bundled copy of the library has its own classes.
    const code = (err as { code?: unknown } | null)?.code;
    if (code === 'NOT_FOUND') return notFound(id);
    if (code === 'JOB_STATUS_CONFLICT') return jsonResponse(409, { ok: false, error: (err as Error).message });
    throw err;
  }
  return jsonResponse(200, { ok: true });
}

/** The body of an edit as queue edits: `payload` as is, `priority` an integer, `runAt` ISO text or null. */
function parseEdit(body: Record<string, unknown>): EditJobOptions {
  const unknown = Object.keys(body).find((key) => !(EDIT_FIELDS as readonly string[]).includes(key));
  if (unknown !== undefined) {
    throw new ValidationError(
      unknown,
      `Expected the edit to hold only ${EDIT_FIELDS.join(', ')}, got ${describeValue(unknown)}`,
    );
  }
  const edit: EditJobOptions = {};
  if ('payload' in body) edit.payload = body.payload;
  if (body.priority !== undefined) edit.priority = requireInteger('priority', body.priority, INT32_MIN, INT32_MAX);
  if (body.runAt !== undefined) edit.runAt = body.runAt === null ? null : parseRunAt(body.runAt);
  if (Object.keys(edit).length === 0) {
    throw new ValidationError('body', `Expected \`body\` to hold at least one of ${EDIT_FIELDS.join(', ')}`);
  }
  return edit;
}

function parseRunAt(value: unknown): Date {
  if (typeof value !== 'string' || !ISO_DATE_TIME.test(value)) {
    throw new ValidationError(
      'runAt',
      `Expected \`runAt\` to be an ISO 8601 date and time with an offset (e.g. "2030-06-01T12:00:00Z") or null, got ${describeValue(value)}`,
    );
  }
  return requireDate('runAt', new Date(value));
}

/**
 * POST /api/jobs/:id/edit with a JSON body { payload?, priority?, runAt? } → 200 { ok: true } |
 * 400 naming the field | 404 | 409 { ok: false, error } when the job is not pending. The queue's
 * editJob does nothing to a job that is not pending, and a processor may claim the job between
 * the first read and the edit, so a job found no longer pending afterwards counts as edited only
 * when its history gained an `edited` event.
 */
async function editJob({ queue }: ResolvedDashboardConfig, id: number, request: Request): Promise<Response> {
  const edit = parseEdit(await readJsonBody(request));
  const refuse = (status: JobStatus) =>
    jsonResponse(409, { ok: false, error: `Job ${id} is ${status}: only pending jobs can be edited` });
  const edits = async () => (await queue.getJobEvents(id)).filter((e) => e.eventType === 'edited').length;
  const [before, editsBefore] = await Promise.all([queue.getJob(id), edits()]);
  if (!before) return notFound(id);
  if (before.status !== 'pending') return refuse(before.status);
  await queue.editJob(id, edit);
  const after = await queue.getJob(id);
  if (!after) return notFound(id);
  if (after.status !== 'pending' && (await edits()) === editsBefore) return refuse(after.status);
  return jsonResponse(200, { ok: true });
}

/** Paths relative to basePath. Listed before /api/jobs/:id, whose pattern would take `count`. */
export const actionRoutes: RouteDef[] = [
  { pattern: /^\/api\/jobs\/count$/, GET: ({ config, params }) => countJobs(config, params) },
  { pattern: /^\/api\/jobs\/retry-failed$/, POST: ({ config, params }) => retryFailed(config, params) },
  { pattern: /^\/api\/jobs\/cancel-pending$/, POST: ({ config, params }) => cancelPending(config, params) },
  { pattern: /^\/api\/jobs\/([^/]+)\/delete$/, POST: ({ config, id }) => deleteJob(config, parseJobId(id)) },
  {
    pattern: /^\/api\/jobs\/([^/]+)\/edit$/,
    POST: ({ config, id, request }) => editJob(config, parseJobId(id), request),
  },
];
