/**
 * The dashboard's JSON routes (SPEC §4.11, DETAILS "Dashboard HTTP API"). Each takes the parsed
 * request and returns a Response; the router in index.ts picks the route.
 */
import { describeValue, ValidationError } from '../errors.js';
import { PAYLOAD_SEARCH_MAX_LENGTH } from '../search-limits.js';
import { requireNonEmptyString, requireStatus } from '../validation.js';
import type { JobRecord, JobStatus } from '../types.js';
import type { JobQueryFilter } from '../option-types.js';
import type { ResolvedDashboardConfig } from './config.js';
import { jsonResponse } from './http.js';
import { CANCELLABLE_STATUSES, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, RETRYABLE_STATUSES } from './shared.js';
import { summarizeJob } from './summary.js';

/** Reads a non-negative decimal integer parameter; absent or empty gives `fallback`. */
export function integerParam(name: string, raw: string | null, min: number, max: number, fallback: number): number {
  if (raw === null || raw === '') return fallback;
  const value = /^\d{1,16}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(value >= min && value <= max)) {
    throw new ValidationError(
      name,
      `Expected \`${name}\` to be an integer between ${min} and ${max}, got ${describeValue(raw)}`,
    );
  }
  return value;
}

/** A job id from the path: a positive decimal integer, else a ValidationError (400). */
export function parseJobId(raw: string): number {
  return integerParam('id', raw, 1, Number.MAX_SAFE_INTEGER, Number.NaN);
}

/** Most `tag` parameters one list request takes. */
const MAX_TAG_PARAMS = 10;

/**
 * The job filter of the list view's query parameters, one parser for the list and for every
 * route that acts on "the jobs the list shows": `status`, `jobType` (exact), `jobTypePrefix`
 * (types starting with it), `tag` (repeatable: jobs carrying every one) and `q` (text in the
 * payload: a bounded search, see JobQueryFilter.payloadContains). Empty parameters are left
 * out; a bad one is a ValidationError naming the parameter.
 */
export function parseJobFilter(params: URLSearchParams): JobQueryFilter {
  const filter: JobQueryFilter = {};
  const rawStatus = params.get('status');
  if (rawStatus) filter.status = requireStatus('status', rawStatus);
  const rawType = params.get('jobType');
  if (rawType) filter.jobType = requireNonEmptyString('jobType', rawType);
  const rawPrefix = params.get('jobTypePrefix');
  if (rawPrefix) filter.jobTypePrefix = requireNonEmptyString('jobTypePrefix', rawPrefix);
  const tags = params.getAll('tag').filter((t) => t !== '');
  if (tags.length > MAX_TAG_PARAMS) {
    throw new ValidationError('tag', `Expected at most ${MAX_TAG_PARAMS} \`tag\` parameters, got ${tags.length}`);
  }
  if (tags.length > 0)
    filter.tags = { values: [...new Set(tags.map((t) => requireNonEmptyString('tag', t)))], mode: 'all' };
  const rawSearch = params.get('q');
  if (rawSearch) filter.payloadContains = requireNonEmptyString('q', rawSearch, PAYLOAD_SEARCH_MAX_LENGTH);
  return filter;
}

/**
 * GET /api/jobs?status&jobType&jobTypePrefix&tag&q&limit&after|offset → 200 { jobs: JobSummary[],
 * hasMore, nextAfter }. `after` (a job id, the previous page's `nextAfter`) reads a keyset page,
 * as cheap deep in the list as at its start; `offset` skips jobs, reading every one it skips.
 * The two together are refused. Each pending job of the page carries why it waits
 * (`holdReason`), asked for the page's pending jobs only, in one backend call.
 */
export async function listJobs({ queue }: ResolvedDashboardConfig, params: URLSearchParams): Promise<Response> {
  const filter = parseJobFilter(params);
  const limit = integerParam('limit', params.get('limit'), 1, MAX_PAGE_SIZE, DEFAULT_PAGE_SIZE);
  const offset = integerParam('offset', params.get('offset'), 0, Number.MAX_SAFE_INTEGER, 0);
  const after = integerParam('after', params.get('after'), 1, Number.MAX_SAFE_INTEGER, 0) || null;
  if (after !== null && offset > 0) {
    throw new ValidationError(
      'offset',
      `Expected no \`offset\` with \`after\`: a page goes on from \`after\` alone, got offset ${offset}`,
    );
  }
  let page: JobRecord[];
  let nextAfter: number | null;
  if (offset > 0) {
    // One row past the page tells whether a next page exists, without a count query.
    const rows = await queue.queryJobs(filter, limit + 1, offset);
    page = rows.slice(0, limit);
    nextAfter = rows.length > limit ? page[page.length - 1]!.id : null;
  } else {
    ({ jobs: page, nextAfter } = await queue.queryJobsPage(filter, { limit, after }));
  }
  const pendingIds = page.filter((job) => job.status === 'pending').map((job) => job.id);
  const reasons = pendingIds.length === 0 ? [] : await queue.getHoldReasons(pendingIds);
  const holdReason = new Map(pendingIds.map((id, i) => [id, reasons[i]]));
  return jsonResponse(200, {
    jobs: page.map((job) => summarizeJob(job, holdReason.get(job.id) ?? null)),
    hasMore: nextAfter !== null,
    nextAfter,
  });
}

function notFound(id: number): Response {
  return jsonResponse(404, { error: `Job ${id} not found` });
}

/** GET /api/jobs/:id → 200 { job } (the full record) | 404. */
export async function getJob({ queue }: ResolvedDashboardConfig, id: number): Promise<Response> {
  const job = await queue.getJob(id);
  return job ? jsonResponse(200, { job }) : notFound(id);
}

/** GET /api/jobs/:id/events → 200 { events } | 404. */
export async function getJobEvents({ queue }: ResolvedDashboardConfig, id: number): Promise<Response> {
  const [job, events] = await Promise.all([queue.getJob(id), queue.getJobEvents(id)]);
  return job ? jsonResponse(200, { events }) : notFound(id);
}

interface JobAction {
  allowed: readonly JobStatus[];
  /** Past participle for messages. */
  done: string;
  /** Set by the storage operation exactly when it changed the job. */
  stamp: 'lastCancelledAt' | 'lastRetriedAt';
  run(queue: ResolvedDashboardConfig['queue'], id: number): Promise<void>;
}

const JOB_ACTIONS: Record<'cancel' | 'retry', JobAction> = {
  cancel: {
    allowed: CANCELLABLE_STATUSES,
    done: 'cancelled',
    stamp: 'lastCancelledAt',
    run: (q, id) => q.cancelJob(id),
  },
  retry: { allowed: RETRYABLE_STATUSES, done: 'retried', stamp: 'lastRetriedAt', run: (q, id) => q.retryJob(id) },
};

/**
 * POST /api/jobs/:id/cancel and /retry → 200 { ok: true } | 404 | 409 { ok: false, error }.
 * The queue's cancelJob and retryJob do nothing on a status they do not apply to, and the
 * status may change between our read and the operation (a processor claims the job), so the
 * job is read again: its timestamp moved only if this operation took effect.
 */
export async function runJobAction(
  { queue }: ResolvedDashboardConfig,
  id: number,
  name: keyof typeof JOB_ACTIONS,
): Promise<Response> {
  const action = JOB_ACTIONS[name];
  const before = await queue.getJob(id);
  if (!before) return notFound(id);
  const refuse = (status: JobStatus) =>
    jsonResponse(409, {
      ok: false,
      error: `Job ${id} is ${status}: only ${action.allowed.join(' or ')} jobs can be ${action.done}`,
    });
  if (!action.allowed.includes(before.status)) return refuse(before.status);
  await action.run(queue, id);
  const after = await queue.getJob(id);
  if (!after) return notFound(id);
  if (after[action.stamp]?.getTime() === before[action.stamp]?.getTime()) return refuse(after.status);
  return jsonResponse(200, { ok: true });
}

/** POST /api/process → 200 { processed } | 500 { error }: one batch with a temporary processor. */
export async function processBatch({ queue, handlers, processorOptions }: ResolvedDashboardConfig): Promise<Response> {
  // A claim failure rejects start(); the router turns it into 500 { error }.
  const processed = await queue.createProcessor(handlers, processorOptions).start();
  return jsonResponse(200, { processed });
}
