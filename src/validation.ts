/**
 * Input validation shared by both backends. Every public operation validates here before
 * anything reaches storage, so bad input is rejected with a ValidationError naming the field
 * and the rule, and nothing is written.
 */
import type { JobEdit, NewJob } from './backend.js';
import {
  INT32_MAX,
  INT32_MIN,
  checkBoolean,
  checkInteger,
  checkKnownKeys,
  checkNumber,
  checkOneOf,
  checkString,
  fail,
  failDescribed,
  isPlainObject,
  isStorableString,
} from './checks.js';
import { DependencyError, ValidationError } from './errors.js';
import { MAX_TAGS, jsonByteBounds, jsonBytesOver, type InputLimits } from './input-limits.js';
import { PAYLOAD_SEARCH_MAX_LENGTH } from './search-limits.js';
import {
  MAX_DATE,
  MAX_IDEMPOTENCY_KEY_BYTES,
  MAX_JSON_DEPTH,
  MIN_DATE,
  isStorableDate,
  unstorableStringReason,
} from './storable.js';
import {
  JOB_STATUSES,
  TAG_QUERY_MODES,
  type EditJobOptions,
  type JobFilter,
  type JobOptions,
  type JobStatus,
  type Queryable,
  type TagQueryMode,
} from './types.js';

export { unstorableStringReason } from './storable.js';

/** Operation input is refused with a ValidationError naming the field. */
const E = ValidationError;

export function requireNonEmptyString(field: string, value: unknown, maxLength = 255): string {
  return checkString(E, field, value, maxLength);
}

export function requireInteger(field: string, value: unknown, min: number, max = INT32_MAX): number {
  return checkInteger(E, field, value, min, max);
}

/** A valid Date that both stores hold (see MIN_DATE and MAX_DATE). */
export function requireDate(field: string, value: unknown): Date {
  if (!(value instanceof Date) || Number.isNaN(value.getTime())) fail(E, field, 'a valid Date', value);
  if (!isStorableDate(value))
    fail(E, field, `a Date from ${MIN_DATE.toISOString()} to ${MAX_DATE.toISOString()}`, value);
  return value;
}

/** An idempotency key: a non-empty string of at most MAX_IDEMPOTENCY_KEY_BYTES in UTF-8. */
function requireIdempotencyKey(field: string, value: unknown): string {
  const key = requireNonEmptyString(field, value, MAX_IDEMPOTENCY_KEY_BYTES);
  if (Buffer.byteLength(key, 'utf8') > MAX_IDEMPOTENCY_KEY_BYTES) {
    fail(
      E,
      field,
      `a string of at most ${MAX_IDEMPOTENCY_KEY_BYTES} bytes in UTF-8 (${Buffer.byteLength(key, 'utf8')} bytes)`,
      value,
    );
  }
  return key;
}

/** Most ids one `getHoldReasons` call takes (a dashboard page holds at most 200). */
export const MAX_HOLD_REASON_IDS = 1000;

/** A list of job ids for a read of several jobs: an array of at most MAX_HOLD_REASON_IDS. */
export function requireJobIds(field: string, value: unknown): number[] {
  if (!Array.isArray(value)) fail(E, field, 'an array of positive integer job ids', value);
  if (value.length > MAX_HOLD_REASON_IDS) {
    fail(E, field, `an array of at most ${MAX_HOLD_REASON_IDS} job ids`, `${value.length} ids`);
  }
  return value.map((id, i) => requireJobId(`${field}[${i}]`, id));
}

/** A job id: a positive safe integer. */
export function requireJobId(field: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
    fail(E, field, 'a positive integer job id', value);
  }
  return value;
}

export function requireStatus(field: string, value: unknown): JobStatus {
  return checkOneOf(E, field, value, JOB_STATUSES);
}

export function requireTagMode(field: string, value: unknown): TagQueryMode {
  return checkOneOf(E, field, value, TAG_QUERY_MODES);
}

/** A list of tags: at most MAX_TAGS non-empty strings; duplicates are dropped. */
export function requireTags(field: string, value: unknown): string[] {
  if (!Array.isArray(value)) fail(E, field, 'an array of non-empty strings', value);
  if (value.length > MAX_TAGS) fail(E, field, `an array of at most ${MAX_TAGS} tags`, value);
  const seen = new Set<string>();
  value.forEach((tag, i) => seen.add(requireNonEmptyString(`${field}[${i}]`, tag)));
  return [...seen];
}

/** Pagination: `limit` >= 0 and `offset` >= 0 integers, both optional. */
export function requirePage(limit: unknown, offset: unknown): { limit?: number; offset?: number } {
  return {
    limit: limit === undefined ? undefined : requireInteger('limit', limit, 0, Number.MAX_SAFE_INTEGER),
    offset: offset === undefined ? undefined : requireInteger('offset', offset, 0, Number.MAX_SAFE_INTEGER),
  };
}

/**
 * Checks that `value` survives a JSON round trip unchanged in both stores: plain objects,
 * arrays, strings without NUL or lone surrogates (see unstorableStringReason), finite numbers, booleans, null.
 * `toJSON` (e.g. Date) is honoured as JSON.stringify would. Arrays and objects nest at most
 * MAX_JSON_DEPTH deep.
 */
export function requireJson(field: string, value: unknown): unknown {
  if (isStorableJson(value)) return value;
  // Refused: the walk below finds the first broken rule and words it with its path.
  const ancestors: unknown[] = [];
  const walk = (path: string, v: unknown): void => {
    if (v !== null && typeof v === 'object' && typeof (v as { toJSON?: unknown }).toJSON === 'function') {
      v = (v as { toJSON: () => unknown }).toJSON();
    }
    if (v === null || typeof v === 'boolean') return;
    if (typeof v === 'string') {
      const unstorable = unstorableStringReason(v);
      if (unstorable) fail(E, path, `JSON-storable (strings cannot contain ${unstorable})`, v);
      return;
    }
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) fail(E, path, 'JSON-storable (numbers must be finite)', v);
      return;
    }
    if (typeof v !== 'object') fail(E, path, 'JSON-storable (no functions, symbols, bigints or undefined)', v);
    if (ancestors.includes(v)) fail(E, path, 'JSON-storable (no circular references)', v);
    if (ancestors.length === MAX_JSON_DEPTH) {
      fail(
        E,
        field,
        `JSON-storable (arrays and objects nested at most ${MAX_JSON_DEPTH} deep; deeper at ${path})`,
        value,
      );
    }
    ancestors.push(v);
    if (Array.isArray(v)) {
      v.forEach((item, i) => walk(`${path}[${i}]`, item === undefined ? null : item));
    } else {
      if (!isPlainObject(v)) fail(E, path, 'JSON-storable (plain objects only, not class instances such as Map)', v);
      for (const [key, item] of Object.entries(v)) {
        const unstorable = unstorableStringReason(key);
        if (unstorable) fail(E, path, `JSON-storable (keys cannot contain ${unstorable})`, key);
        // Undefined members are dropped as JSON.stringify would; a function or symbol member
        // would vanish silently too, which hides a caller's mistake, so it is refused.
        if (item !== undefined) walk(`${path}.${key}`, item);
      }
    }
    ancestors.pop();
  };
  if (value === undefined) fail(E, field, 'a JSON value', value);
  walk(field, value);
  return value;
}

/**
 * A JSON value the caller writes (a payload, a token's output): requireJson's rules, and at most
 * `maxBytes` bytes as JSON in UTF-8 (the queue's `maxPayloadBytes`). A value far over the limit
 * is refused from its strings' lengths, before it is read or serialized; the refusal names its
 * size, never its text.
 */
export function requireSizedJson(field: string, value: unknown, maxBytes: number): unknown {
  const rule = `JSON of at most ${maxBytes} bytes in UTF-8 (the queue's maxPayloadBytes)`;
  const { low, high } = jsonByteBounds(value, maxBytes);
  if (low > maxBytes) failDescribed(E, field, rule, `at least ${low} bytes`);
  if (!isStorableJson(value)) requireJson(field, value);
  // Serialized only when the bounds leave it open: a payload well within the limit is not.
  if (high > maxBytes) {
    const bytes = jsonBytesOver(value, maxBytes);
    if (bytes !== null) failDescribed(E, field, rule, `${bytes} bytes`);
  }
  return value;
}

/**
 * Whether `value` passes requireJson's rules, building no path and no message: the common case
 * (a valid payload) costs one pass over the value. requireJson words a refusal.
 */
function isStorableJson(value: unknown, ancestors: unknown[] = []): boolean {
  let v = value;
  if (v !== null && typeof v === 'object' && typeof (v as { toJSON?: unknown }).toJSON === 'function') {
    v = (v as { toJSON: () => unknown }).toJSON();
  }
  switch (typeof v) {
    case 'boolean':
      return true;
    case 'string':
      return unstorableStringReason(v) === null;
    case 'number':
      return Number.isFinite(v);
    case 'object':
      break;
    default:
      return false;
  }
  if (v === null) return true;
  if (ancestors.length === MAX_JSON_DEPTH || ancestors.includes(v)) return false;
  ancestors.push(v);
  let ok = true;
  if (Array.isArray(v)) {
    for (let i = 0; ok && i < v.length; i++) {
      const item: unknown = v[i];
      ok = item === undefined || isStorableJson(item, ancestors);
    }
  } else if (!isPlainObject(v)) {
    ok = false;
  } else {
    for (const key of Object.keys(v)) {
      const item = v[key];
      if (unstorableStringReason(key) !== null || (item !== undefined && !isStorableJson(item, ancestors))) {
        ok = false;
        break;
      }
    }
  }
  ancestors.pop();
  return ok;
}

/** `name` under `field` (`jobs[3]` → `jobs[3].name`); built only for a refusal. */
function under(field: string, name: string): string {
  return field ? `${field}.${name}` : name;
}

/** The options of addJob and of each addJobs entry. */
const JOB_OPTION_KEYS = [
  'jobType',
  'payload',
  'maxAttempts',
  'priority',
  'runAt',
  'timeoutMs',
  'forceKillOnTimeout',
  'tags',
  'idempotencyKey',
  'retryDelay',
  'retryBackoff',
  'retryDelayMax',
  'deadLetterJobType',
  'group',
  'dependsOn',
] as const;

function optional<T>(value: T | undefined, check: (v: T) => unknown): void {
  if (value !== undefined) check(value);
}

/**
 * Validates one job's options and applies the spec's defaults (SPEC §2.2).
 * `field` prefixes error fields, e.g. `jobs[3]`. `batch` allows negative placeholders.
 * `limits` bounds the payload's size; without them (a cron slot's job, whose schedule was
 * checked when stored) the payload's size is not checked.
 */
export function normalizeJob(
  field: string,
  options: JobOptions,
  now: Date,
  { batch, limits }: { batch?: { index: number; size: number }; limits?: InputLimits } = {},
): NewJob {
  if (!isPlainObject(options)) fail(E, field || 'job', 'an object of job options', options);
  const o = options;
  checkKnownKeys(E, field, o, JOB_OPTION_KEYS, 'job options');
  const jobType = isStorableString(o.jobType, 255)
    ? o.jobType
    : requireNonEmptyString(under(field, 'jobType'), o.jobType);
  if (!('payload' in o) || o.payload === undefined)
    fail(E, under(field, 'payload'), 'a JSON value (it is required)', o.payload);
  if (limits) requireSizedJson(under(field, 'payload'), o.payload, limits.maxPayloadBytes);
  else if (!isStorableJson(o.payload)) requireJson(under(field, 'payload'), o.payload);

  const maxAttempts = o.maxAttempts === undefined ? 3 : requireInteger(under(field, 'maxAttempts'), o.maxAttempts, 1);
  const priority =
    o.priority === undefined ? 0 : requireInteger(under(field, 'priority'), o.priority, INT32_MIN, INT32_MAX);
  const runAt = o.runAt === undefined || o.runAt === null ? now : requireDate(under(field, 'runAt'), o.runAt);
  const timeoutMs = o.timeoutMs === undefined ? null : requireInteger(under(field, 'timeoutMs'), o.timeoutMs, 1);
  const forceKillOnTimeout =
    o.forceKillOnTimeout === undefined
      ? false
      : checkBoolean(E, under(field, 'forceKillOnTimeout'), o.forceKillOnTimeout);
  const tags = o.tags === undefined ? [] : requireTags(under(field, 'tags'), o.tags);
  const idempotencyKey =
    o.idempotencyKey === undefined ? null : requireIdempotencyKey(under(field, 'idempotencyKey'), o.idempotencyKey);
  const retryDelay = o.retryDelay === undefined ? null : checkNumber(E, under(field, 'retryDelay'), o.retryDelay, 0);
  const retryBackoff =
    o.retryBackoff === undefined ? null : checkBoolean(E, under(field, 'retryBackoff'), o.retryBackoff);
  const retryDelayMax =
    o.retryDelayMax === undefined ? null : checkNumber(E, under(field, 'retryDelayMax'), o.retryDelayMax, 0);
  const deadLetterJobType =
    o.deadLetterJobType === undefined
      ? null
      : requireNonEmptyString(under(field, 'deadLetterJobType'), o.deadLetterJobType);

  let group: NewJob['group'] = null;
  if (o.group !== undefined) {
    if (!isPlainObject(o.group)) fail(E, under(field, 'group'), 'an object { id: string; tier?: string }', o.group);
    checkKnownKeys(E, under(field, 'group'), o.group, ['id', 'tier'], '`group`');
    group = {
      id: requireNonEmptyString(under(field, 'group.id'), o.group.id),
      tier: o.group.tier === undefined ? null : requireNonEmptyString(under(field, 'group.tier'), o.group.tier),
    };
  }

  let dependsOnJobIds: number[] | null = null;
  let dependsOnTags: string[] | null = null;
  if (o.dependsOn !== undefined) {
    if (!isPlainObject(o.dependsOn))
      fail(E, under(field, 'dependsOn'), 'an object { jobIds?: number[]; tags?: string[] }', o.dependsOn);
    checkKnownKeys(E, under(field, 'dependsOn'), o.dependsOn, ['jobIds', 'tags'], '`dependsOn`');
    const { jobIds, tags: depTags } = o.dependsOn;
    if (jobIds !== undefined) {
      if (!Array.isArray(jobIds)) fail(E, under(field, 'dependsOn.jobIds'), 'an array of job ids', jobIds);
      const ids = new Set<number>();
      jobIds.forEach((id, i) => {
        const f = under(field, `dependsOn.jobIds[${i}]`);
        if (typeof id !== 'number' || !Number.isSafeInteger(id) || id === 0) {
          fail(E, f, batch ? 'a positive job id or a batchDepRef placeholder' : 'a positive job id', id);
        }
        if (id < 0) {
          if (!batch) {
            throw new DependencyError(
              `\`${f}\` is ${id}: negative placeholders (batchDepRef) are only valid in addJobs, addJob takes positive job ids`,
            );
          }
          const target = -id - 1;
          if (target >= batch.size) {
            throw new DependencyError(
              `\`${f}\` is ${id}, a placeholder for batch index ${target}, but the batch has ${batch.size} jobs`,
            );
          }
          if (target === batch.index) {
            throw new DependencyError(`\`${f}\` is ${id}: a job cannot depend on itself`);
          }
        }
        ids.add(id);
      });
      if (ids.size > 0) dependsOnJobIds = [...ids];
    }
    if (depTags !== undefined) {
      const t = requireTags(under(field, 'dependsOn.tags'), depTags);
      if (t.length > 0) dependsOnTags = t;
    }
  }

  return {
    jobType,
    payload: o.payload,
    maxAttempts,
    priority,
    runAt,
    timeoutMs,
    forceKillOnTimeout,
    tags,
    idempotencyKey,
    retryDelay,
    retryBackoff,
    retryDelayMax,
    deadLetterJobType,
    group,
    dependsOnJobIds,
    dependsOnTags,
    // Set by the add operations when a trace is recorded there (see telemetry/).
    traceContext: null,
  };
}

/** The second argument of addJob and addJobs; returns its `db`. */
export function requireAddOptions(options: unknown): Queryable | undefined {
  if (options === undefined) return undefined;
  if (!isPlainObject(options)) fail(E, 'addOptions', 'an object { db? }', options);
  checkKnownKeys(E, 'addOptions', options, ['db'], 'the add options');
  return options.db as Queryable | undefined;
}

/** Rejects placeholder cycles inside one `addJobs` batch (a → b → a). */
export function assertNoPlaceholderCycles(jobs: NewJob[]): void {
  const state = new Uint8Array(jobs.length); // 0 new, 1 on the path, 2 done
  const visit = (i: number, path: number[]): void => {
    if (state[i] === 2) return;
    if (state[i] === 1) {
      const cycle = [...path.slice(path.indexOf(i)), i].map((n) => `jobs[${n}]`).join(' -> ');
      throw new DependencyError(`Dependency cycle in addJobs: ${cycle}`);
    }
    state[i] = 1;
    for (const id of jobs[i]!.dependsOnJobIds ?? []) if (id < 0) visit(-id - 1, [...path, i]);
    state[i] = 2;
  };
  for (let i = 0; i < jobs.length; i++) visit(i, []);
}

const EDIT_FIELDS = [
  'payload',
  'maxAttempts',
  'priority',
  'runAt',
  'timeoutMs',
  'tags',
  'retryDelay',
  'retryBackoff',
  'retryDelayMax',
  'deadLetterJobType',
] as const;

/** Validates an edit (SPEC §2.6). Unknown keys such as `jobType` are rejected. */
export function normalizeEdit(updates: EditJobOptions, now: Date, limits: InputLimits): JobEdit {
  if (!isPlainObject(updates)) fail(E, 'updates', 'an object of job fields', updates);
  const u = updates;
  checkKnownKeys(E, 'updates', u, EDIT_FIELDS, 'job edits', { jobType: 'the type of a job cannot be changed' });
  const edit: JobEdit = {};
  if (u.payload !== undefined) edit.payload = requireSizedJson('updates.payload', u.payload, limits.maxPayloadBytes);
  optional(u.maxAttempts, (v) => (edit.maxAttempts = requireInteger('updates.maxAttempts', v, 1)));
  optional(u.priority, (v) => (edit.priority = requireInteger('updates.priority', v, INT32_MIN, INT32_MAX)));
  if ('runAt' in u && u.runAt !== undefined)
    edit.runAt = u.runAt === null ? now : requireDate('updates.runAt', u.runAt);
  optional(u.timeoutMs, (v) => (edit.timeoutMs = requireInteger('updates.timeoutMs', v, 1)));
  optional(u.tags, (v) => (edit.tags = requireTags('updates.tags', v)));
  optional(u.retryDelay, (v) => (edit.retryDelay = v === null ? null : checkNumber(E, 'updates.retryDelay', v, 0)));
  optional(u.retryBackoff, (v) => (edit.retryBackoff = v === null ? null : checkBoolean(E, 'updates.retryBackoff', v)));
  optional(
    u.retryDelayMax,
    (v) => (edit.retryDelayMax = v === null ? null : checkNumber(E, 'updates.retryDelayMax', v, 0)),
  );
  optional(
    u.deadLetterJobType,
    (v) => (edit.deadLetterJobType = v === null ? null : requireNonEmptyString('updates.deadLetterJobType', v)),
  );
  return edit;
}

/** Validates a job filter (SPEC §2.7) and returns a copy with the tag mode defaulted. */
const JOB_FILTER_KEYS = ['jobType', 'jobTypePrefix', 'priority', 'runAt', 'tags'] as const;

export function normalizeFilter(filter: unknown, field = 'filter'): JobFilter | undefined {
  if (filter === undefined || filter === null) return undefined;
  if (!isPlainObject(filter))
    fail(E, field, 'an object { jobType?, jobTypePrefix?, priority?, runAt?, tags? }', filter);
  checkKnownKeys(E, field, filter, JOB_FILTER_KEYS, 'a job filter');
  const out: JobFilter = {};
  if (filter.jobType !== undefined) out.jobType = requireNonEmptyString(`${field}.jobType`, filter.jobType);
  if (filter.jobTypePrefix !== undefined) {
    out.jobTypePrefix = requireNonEmptyString(`${field}.jobTypePrefix`, filter.jobTypePrefix);
  }
  if (filter.priority !== undefined) {
    out.priority = requireInteger(`${field}.priority`, filter.priority, INT32_MIN, INT32_MAX);
  }
  if (filter.runAt !== undefined) {
    const r = filter.runAt;
    if (r instanceof Date) out.runAt = requireDate(`${field}.runAt`, r);
    else {
      if (!isPlainObject(r)) fail(E, `${field}.runAt`, 'a Date or { gt?, gte?, lt?, lte?, eq? } of Dates', r);
      checkKnownKeys(E, `${field}.runAt`, r, ['gt', 'gte', 'lt', 'lte', 'eq'], 'a runAt range');
      const range: Record<string, Date> = {};
      for (const [op, v] of Object.entries(r)) {
        if (v !== undefined) range[op] = requireDate(`${field}.runAt.${op}`, v);
      }
      out.runAt = range;
    }
  }
  if (filter.tags !== undefined) {
    const t = filter.tags;
    if (!isPlainObject(t))
      fail(E, `${field}.tags`, "an object { values: string[]; mode?: 'exact' | 'all' | 'any' | 'none' }", t);
    checkKnownKeys(E, `${field}.tags`, t, ['values', 'mode'], 'a tag filter');
    out.tags = {
      values: requireTags(`${field}.tags.values`, t.values),
      mode: t.mode === undefined ? 'all' : requireTagMode(`${field}.tags.mode`, t.mode),
    };
  }
  return out;
}

/**
 * The filter of `queryJobs`: a job filter (checked by normalizeFilter) plus an optional `status`
 * and `payloadContains`.
 */
export function normalizeJobQuery(
  query: unknown,
  field = 'filter',
): { status?: JobStatus; filter?: JobFilter; payloadContains?: string } {
  if (query === undefined || query === null) return {};
  if (!isPlainObject(query)) {
    fail(
      E,
      field,
      'an object { status?, jobType?, jobTypePrefix?, priority?, runAt?, tags?, payloadContains? }',
      query,
    );
  }
  checkKnownKeys(E, field, query, ['status', ...JOB_FILTER_KEYS, 'payloadContains'], 'a job query filter');
  const { status, payloadContains, ...filter } = query;
  return {
    status: status === undefined ? undefined : requireStatus(`${field}.status`, status),
    filter: normalizeFilter(filter, field),
    payloadContains:
      payloadContains === undefined
        ? undefined
        : requireNonEmptyString(`${field}.payloadContains`, payloadContains, PAYLOAD_SEARCH_MAX_LENGTH),
  };
}

/** Most jobs getJobCounts counts per status when the caller gives no `limit`. */
export const DEFAULT_COUNT_LIMIT = 10_000;
/** Largest `limit` of getJobCounts: the work of a call follows it. */
export const MAX_COUNT_LIMIT = 100_000;
/** The minutes getThroughput reports by default, and at most (the counters keep about an hour). */
export const THROUGHPUT_MINUTES = 60;

/** The options of getJobCounts (JobCountsOptions), defaults applied. */
export function requireJobCountsOptions(options: unknown): { limit: number } {
  const o = optionsObject(options, 'an object { limit? }', ['limit']);
  const limit =
    o.limit === undefined ? DEFAULT_COUNT_LIMIT : requireInteger('options.limit', o.limit, 1, MAX_COUNT_LIMIT);
  return { limit };
}

/** The options of getThroughput (ThroughputOptions), defaults applied. */
export function requireThroughputOptions(options: unknown): { minutes: number } {
  const o = optionsObject(options, 'an object { minutes? }', ['minutes']);
  const minutes =
    o.minutes === undefined ? THROUGHPUT_MINUTES : requireInteger('options.minutes', o.minutes, 1, THROUGHPUT_MINUTES);
  return { minutes };
}

/** Jobs per page of queryJobsPage when the caller gives no `limit`. */
export const DEFAULT_JOB_PAGE_SIZE = 100;

/**
 * The options of queryJobsPage (JobPageOptions), defaults applied. An offset is refused: the
 * page goes on from `after`, and an offset counted from it would bring back the deep reads the
 * cursor is there to avoid.
 */
export function requireJobPageOptions(options: unknown): { limit: number; after: number | null } {
  if (options !== undefined && !isPlainObject(options)) fail(E, 'options', 'an object { limit?, after? }', options);
  const o = options ?? {};
  checkKnownKeys(E, 'options', o, ['limit', 'after'], 'options', {
    offset: "a page goes on from `after`, the previous page's `nextAfter`; queryJobs takes an offset",
  });
  return {
    limit:
      o.limit === undefined
        ? DEFAULT_JOB_PAGE_SIZE
        : requireInteger('options.limit', o.limit, 1, Number.MAX_SAFE_INTEGER),
    after: o.after === undefined || o.after === null ? null : requireJobId('options.after', o.after),
  };
}

/** An options object of a read (undefined reads as `{}`), with no key outside `known`. */
function optionsObject(options: unknown, rule: string, known: readonly string[]): Record<string, unknown> {
  if (options === undefined) return {};
  if (!isPlainObject(options)) fail(E, 'options', rule, options);
  checkKnownKeys(E, 'options', options, known, 'options');
  return options;
}
