/**
 * Job filters (SPEC §2.7) in the form the Lua scripts read (includes/filter.lua): dates as
 * epoch milliseconds, an exact runAt as `{ eq }`.
 */
import type { JobFilter, JobStatus, TagQueryMode } from '../../types.js';

export interface LuaQuery {
  status?: JobStatus;
  jobType?: string;
  jobTypePrefix?: string;
  priority?: number;
  runAt?: { eq?: number; gt?: number; gte?: number; lt?: number; lte?: number };
  tags?: { values: string[]; mode: TagQueryMode };
  /** A listing's payload search text, letters A–Z lowered (get-jobs.lua only). */
  search?: string;
  /** With `search`: keep only the jobs below this id, a keyset page (get-jobs.lua only). */
  below?: number;
}

export function toLuaQuery(filter: JobFilter | undefined, status?: JobStatus): LuaQuery {
  const q: LuaQuery = {};
  if (status !== undefined) q.status = status;
  if (!filter) return q;
  if (filter.jobType !== undefined) q.jobType = filter.jobType;
  if (filter.jobTypePrefix !== undefined) q.jobTypePrefix = filter.jobTypePrefix;
  if (filter.priority !== undefined) q.priority = filter.priority;
  if (filter.runAt instanceof Date) {
    q.runAt = { eq: filter.runAt.getTime() };
  } else if (filter.runAt) {
    const range: NonNullable<LuaQuery['runAt']> = {};
    for (const op of ['eq', 'gt', 'gte', 'lt', 'lte'] as const) {
      const d = filter.runAt[op];
      if (d !== undefined) range[op] = d.getTime();
    }
    q.runAt = range;
  }
  if (filter.tags) q.tags = { values: filter.tags.values, mode: filter.tags.mode ?? 'all' };
  return q;
}
