/**
 * The job metadata stored in the `jobs` hash, and its mapping to the public JobRecord.
 *
 * Lua scripts decode and re-encode this JSON with cjson, which
 * - writes an empty array as `{}` (read back here as []),
 * - writes numbers with 14 significant digits: exact for ids, counters, int32 fields and
 *   millisecond times up to the year 5138, but not for arbitrary floats. The two float fields
 *   (retryDelay, retryDelayMax) are therefore stored as decimal strings.
 * Fields may be absent (a dead-letter job created in Lua lists only what it sets): absent
 * reads as null, or the field's default.
 * Payload, output and step data are not here: they live verbatim in their own hashes (step
 * data one field per step, assembled into one JSON object text by includes/steps.lua).
 */
import type { ClaimedJob, NewJob } from '../../backend.js';
import type { ErrorHistoryEntry, FailureReason, JobEvent, JobEventType, JobRecord, JobStatus } from '../../types.js';

/** Times are epoch milliseconds. */
export interface StoredJob {
  id: number;
  jobType: string;
  status: JobStatus;
  createdAt: number;
  updatedAt: number;
  lockedAt?: number | null;
  lockedBy?: string | null;
  attempts: number;
  maxAttempts: number;
  nextAttemptAt?: number | null;
  priority: number;
  runAt: number;
  pendingReason?: string | null;
  errorHistory?: ErrorHistoryEntry[] | Record<string, never>;
  timeoutMs?: number | null;
  forceKillOnTimeout?: boolean;
  failureReason?: FailureReason | null;
  completedAt?: number | null;
  startedAt?: number | null;
  lastRetriedAt?: number | null;
  lastFailedAt?: number | null;
  lastCancelledAt?: number | null;
  tags?: string[] | Record<string, never>;
  idempotencyKey?: string | null;
  progress?: number | null;
  /** Decimal text of the number (see above). */
  retryDelay?: string | null;
  retryBackoff?: boolean | null;
  /** Decimal text of the number (see above). */
  retryDelayMax?: string | null;
  deadLetterJobType?: string | null;
  deadLetteredAt?: number | null;
  deadLetterJobId?: number | null;
  groupId?: string | null;
  groupTier?: string | null;
  dependsOnJobIds?: number[] | null;
  dependsOnTags?: string[] | null;
  waitUntil?: number | null;
  waitTokenId?: string | null;
  /** The producer's trace context (NewJob.traceContext); read by claims only. */
  traceContext?: string;
}

/** A float stored as text, or null. */
export function floatText(value: number | null): string | null {
  return value === null ? null : String(value);
}

/**
 * The stored metadata of a new job, without id (add-jobs.lua allocates it). Null fields and
 * empty arrays are left out, as scripts store them (includes/job.lua): absent reads as null or
 * the field's default. A new job has no lock, failure, completion, progress, wait or
 * dead-letter record yet, so only its options can be set besides the fields every job has.
 */
export function toStoredJob(job: NewJob, now: Date): Omit<StoredJob, 'id'> {
  const t = now.getTime();
  const stored: Omit<StoredJob, 'id'> = {
    jobType: job.jobType,
    status: 'pending',
    createdAt: t,
    updatedAt: t,
    attempts: 0,
    maxAttempts: job.maxAttempts,
    priority: job.priority,
    runAt: job.runAt.getTime(),
  };
  if (job.timeoutMs !== null) stored.timeoutMs = job.timeoutMs;
  stored.forceKillOnTimeout = job.forceKillOnTimeout;
  if (job.tags.length > 0) stored.tags = job.tags;
  if (job.idempotencyKey !== null) stored.idempotencyKey = job.idempotencyKey;
  if (job.retryDelay !== null) stored.retryDelay = floatText(job.retryDelay);
  if (job.retryBackoff !== null) stored.retryBackoff = job.retryBackoff;
  if (job.retryDelayMax !== null) stored.retryDelayMax = floatText(job.retryDelayMax);
  if (job.deadLetterJobType !== null) stored.deadLetterJobType = job.deadLetterJobType;
  if (job.group !== null) {
    stored.groupId = job.group.id;
    if (job.group.tier !== null) stored.groupTier = job.group.tier;
  }
  if (job.dependsOnJobIds !== null && job.dependsOnJobIds.length > 0) stored.dependsOnJobIds = job.dependsOnJobIds;
  if (job.dependsOnTags !== null && job.dependsOnTags.length > 0) stored.dependsOnTags = job.dependsOnTags;
  if (job.traceContext !== null) stored.traceContext = job.traceContext;
  return stored;
}

/**
 * The stored metadata of a new job as JSON text, without id: the add scripts put the id in
 * front (includes/new-job.lua) and save the rest as is, so they never encode it. Numbers are
 * exact here (JSON.stringify), which cjson's 14 digits would not always be.
 */
export function toStoredJobText(job: NewJob, now: Date): string {
  return JSON.stringify(toStoredJob(job, now));
}

/**
 * The `added` event's metadata of a new job as JSON text, or '' when it is the default (no tags,
 * no idempotency key): the add scripts then keep the event in the job's metadata
 * (`addedEventId`, includes/new-job.lua) instead of writing an event, and get-job-events.lua
 * gives it back as `{ jobType, tags: [], idempotencyKey: null }`.
 */
export function addedEventText(job: Pick<NewJob, 'jobType' | 'tags' | 'idempotencyKey'>): string {
  if (job.tags.length === 0 && job.idempotencyKey === null) return '';
  return JSON.stringify({ jobType: job.jobType, tags: job.tags, idempotencyKey: job.idempotencyKey });
}

function date(ms: number | null | undefined): Date | null {
  return ms === null || ms === undefined ? null : new Date(ms);
}

function array<T>(value: T[] | Record<string, never> | null | undefined): T[] {
  return Array.isArray(value) ? value : [];
}

/** A nullable array: absent, null or cjson's `{}` for an empty one read as null. */
function nullableArray<T>(value: T[] | Record<string, never> | null | undefined): T[] | null {
  return Array.isArray(value) && value.length > 0 ? value : null;
}

function float(text: string | number | null | undefined): number | null {
  return text === null || text === undefined ? null : Number(text);
}

function json(text: string | null | undefined): unknown {
  return text === null || text === undefined ? null : JSON.parse(text);
}

/** A job as scripts return it (includes/row.lua): metadata, payload, output and step-data texts. */
export type JobRow = [meta: string, payload: string | null, output: string | null, steps: string | null];

/** Maps stored metadata and the verbatim payload/output/step-data texts to a JobRecord. */
export function toJobRecord(
  metaText: string,
  payloadText: string | null | undefined,
  outputText: string | null | undefined,
  stepsText: string | null | undefined,
): JobRecord {
  return recordOf(JSON.parse(metaText) as StoredJob, payloadText, outputText, stepsText);
}

/** A claimed job: the record, with the trace context stored with it when there is one. */
export function toClaimedJob(
  metaText: string,
  payloadText: string | null | undefined,
  outputText: string | null | undefined,
  stepsText: string | null | undefined,
): ClaimedJob {
  const s = JSON.parse(metaText) as StoredJob;
  const job: ClaimedJob = recordOf(s, payloadText, outputText, stepsText);
  if (s.traceContext !== undefined) job.traceContext = s.traceContext;
  return job;
}

function recordOf(
  s: StoredJob,
  payloadText: string | null | undefined,
  outputText: string | null | undefined,
  stepsText: string | null | undefined,
): JobRecord {
  const updatedAt = new Date(s.updatedAt);
  const lockedAt = date(s.lockedAt);
  const lockedBy = s.lockedBy ?? null;
  return {
    id: s.id,
    jobType: s.jobType,
    payload: json(payloadText),
    status: s.status,
    createdAt: new Date(s.createdAt),
    updated_at: updatedAt,
    updatedAt,
    locked_at: lockedAt,
    lockedAt,
    locked_by: lockedBy,
    lockedBy,
    attempts: s.attempts,
    maxAttempts: s.maxAttempts,
    nextAttemptAt: date(s.nextAttemptAt),
    priority: s.priority,
    runAt: new Date(s.runAt),
    pendingReason: s.pendingReason ?? null,
    errorHistory: array(s.errorHistory),
    timeoutMs: s.timeoutMs ?? null,
    forceKillOnTimeout: s.forceKillOnTimeout ?? false,
    failureReason: s.failureReason ?? null,
    completedAt: date(s.completedAt),
    startedAt: date(s.startedAt),
    lastRetriedAt: date(s.lastRetriedAt),
    lastFailedAt: date(s.lastFailedAt),
    lastCancelledAt: date(s.lastCancelledAt),
    tags: array(s.tags),
    idempotencyKey: s.idempotencyKey ?? null,
    progress: s.progress ?? null,
    output: json(outputText),
    retryDelay: float(s.retryDelay),
    retryBackoff: s.retryBackoff ?? null,
    retryDelayMax: float(s.retryDelayMax),
    deadLetterJobType: s.deadLetterJobType ?? null,
    deadLetteredAt: date(s.deadLetteredAt),
    deadLetterJobId: s.deadLetterJobId ?? null,
    group: s.groupId ? { id: s.groupId, ...(s.groupTier ? { tier: s.groupTier } : {}) } : null,
    dependsOnJobIds: nullableArray(s.dependsOnJobIds),
    dependsOnTags: nullableArray(s.dependsOnTags),
    waitUntil: date(s.waitUntil),
    waitTokenId: s.waitTokenId ?? null,
    stepData: json(stepsText) as Record<string, unknown> | null,
  };
}

interface StoredEvent {
  id: number;
  jobId: number;
  eventType: JobEventType;
  createdAt: number;
  metadata: unknown;
}

export function toJobEvent(text: string): JobEvent {
  const e = JSON.parse(text) as StoredEvent;
  return {
    id: e.id,
    jobId: e.jobId,
    eventType: e.eventType,
    createdAt: new Date(e.createdAt),
    metadata: e.metadata ?? null,
  };
}
