/**
 * Listing jobs (SPEC §4.2) and the job filter (SPEC §2.7) that listings and bulk operations share.
 */
import type { CountQuery, JobQuery } from '../../../backend.js';
import type { JobFilter } from '../../../types.js';
import { lowerAscii, searchLimits } from '../../../search-limits.js';
import { jobColumns } from '../rows.js';
import type { SchemaNames } from './names.js';

/** The WHERE conditions of a job filter (SPEC §2.7), to be ANDed; their values go to `values`. */
export function filterConditions(
  t: SchemaNames,
  filter: JobFilter | undefined,
  values: unknown[],
  alias = 'j',
): string[] {
  const where: string[] = [];
  if (!filter) return where;
  const param = (value: unknown): string => {
    values.push(value);
    return `$${values.length}`;
  };
  if (filter.jobType !== undefined) where.push(`${alias}.job_type = ${param(filter.jobType)}`);
  if (filter.jobTypePrefix !== undefined) {
    // A bulk change: the types as a subquery, run once per statement (an InitPlan).
    const types = prefixTypesCte(t, param(filter.jobTypePrefix), param(searchLimits.prefixTypes));
    where.push(`${alias}.job_type = ANY(ARRAY(${types}))`);
  }
  if (filter.priority !== undefined) where.push(`${alias}.priority = ${param(filter.priority)}`);
  if (filter.runAt !== undefined) {
    if (filter.runAt instanceof Date) {
      where.push(`${alias}.run_at = ${param(filter.runAt)}::timestamptz`);
    } else {
      const ops = { gt: '>', gte: '>=', lt: '<', lte: '<=', eq: '=' } as const;
      for (const [op, sqlOp] of Object.entries(ops)) {
        const value = filter.runAt[op as keyof typeof ops];
        if (value !== undefined) where.push(`${alias}.run_at ${sqlOp} ${param(value)}::timestamptz`);
      }
    }
  }
  if (filter.tags !== undefined) {
    const tags = `${param(filter.tags.values)}::text[]`;
    // A job without tags never matches given tags; saying so lets the planner use
    // job_queue_tags_idx, which leaves such jobs out (migration 004).
    const tagged = filter.tags.values.length > 0 ? ` AND ${alias}.tags <> '{}'` : '';
    switch (filter.tags.mode ?? 'all') {
      case 'all':
        where.push(`(${alias}.tags @> ${tags}${tagged})`);
        break;
      case 'any':
        where.push(`(${alias}.tags && ${tags}${tagged})`);
        break;
      case 'none':
        where.push(`NOT (${alias}.tags && ${tags})`);
        break;
      case 'exact':
        // Same set: tags are stored without duplicates, so mutual containment is equality.
        where.push(`(${alias}.tags @> ${tags} AND ${alias}.tags <@ ${tags}${tagged})`);
        break;
    }
  }
  return where;
}

/**
 * The distinct job types starting with a prefix. A loose index scan (a recursive CTE, one probe
 * of job_queue_job_type_idx per distinct type) walks the distinct types from the prefix on and
 * keeps those starting with it. It does not stop at the first type that does not: in a
 * linguistic collation (en_US) punctuation weighs little, so `emailer` can sort between
 * `email.a` and `email.x`. So it walks at most `maxTypes` distinct types. `starts_with`
 * compares characters, whatever the collation.
 */
function prefixTypesCte(t: SchemaNames, prefix: string, maxTypes: string): string {
  return `WITH RECURSIVE types(job_type, n) AS (
  (SELECT job_type, 1 FROM ${t.jobs} WHERE job_type >= ${prefix} ORDER BY job_type LIMIT 1)
  UNION ALL
  SELECT (SELECT o.job_type FROM ${t.jobs} o WHERE o.job_type > types.job_type ORDER BY o.job_type LIMIT 1), n + 1
  FROM types WHERE types.job_type IS NOT NULL AND n < ${maxTypes}::int
)
SELECT job_type FROM types WHERE starts_with(job_type, ${prefix})`;
}

/** The job types starting with $1, reading at most $2 distinct types (prefixTypesCte). Rows: job_type. */
export function prefixTypesSql(t: SchemaNames): string {
  return prefixTypesCte(t, '$1', '$2');
}

/**
 * How many of the newest jobs a page looks through before it asks an index: a page whose
 * matches are at least one in a hundred of the newest jobs is found there.
 */
export const RECENT_WINDOW = 5000;

/**
 * A list query (SPEC §4.2): filters ANDed, newest first, optional limit/offset.
 *
 * A page has two ways to be found: walk the jobs newest first (primary key, or the status or
 * type index) until it is full, cheap when matches are common; or read every match through an
 * index and sort them, cheap when they are rare. Which one is cheaper depends on how common the
 * matches are, and the planner only knows that from statistics: right after a burst of adds,
 * before ANALYZE, it takes every condition for rare (and two conditions for rarer still), so it
 * walked 230,000 jobs for a tag held by 200 of 1,000,000, and intersected two bitmaps of most of
 * the table, then sorted, for pending jobs of a common type. So the choice is not left to the
 * statistics:
 *
 * 1. The page is first looked for among the newest RECENT_WINDOW jobs. `ORDER BY id DESC LIMIT`
 *    with no condition has one plan, a walk of the primary key, that stops as soon as the page
 *    is full: at most RECENT_WINDOW rows, whatever the filter and the statistics.
 * 2. Only when that window holds fewer matches than the page needs, the page is read from the
 *    whole table. A tag condition that a GIN index serves (`all`, `any`, `exact`) then reads its
 *    matches alone behind `OFFSET 0` (no ordering and no other condition reaches that scan, so
 *    its plan is the GIN bitmap, or a sequential scan when the statistics say the tags are on a
 *    large part of the table), and the page is sorted from them: work in the tag's matches.
 *    Other filters keep the planner's plan.
 *
 * A single condition other than tags skips the window: a status or a type is served in order by
 * its index, and priority, run time and tags in `none` mode have no index to choose (the walk of
 * the primary key is their plan). So does a page deeper than the window. Such a page, when no
 * tag index serves a condition, is read with INDEX_READS (`indexReads`, index-walk.ts): the walk
 * in id order is then the only plan, whatever the statistics (before ANALYZE the planner could
 * take a condition for rare and sort a scan of the whole table instead).
 *
 * A keyset page (`before`: the ids below the last job of the previous page) is a first page of
 * the jobs below that id: `id < before` bounds the walk of the primary key, the status or the
 * type index (both end in id) from its start, and the window is the RECENT_WINDOW jobs below it.
 * So a page a million jobs deep costs what the first page costs, where an offset reads and
 * throws away every job before it.
 */
export function listJobsSql(
  t: SchemaNames,
  query: JobQuery,
  prefixTypes?: string[],
): { text: string; values: unknown[]; indexReads?: boolean } {
  if (query.payloadContains !== undefined) return payloadSearchSql(t, query, prefixTypes);
  const values: unknown[] = [];
  const param = (value: unknown): string => {
    values.push(value);
    return `$${values.length}`;
  };
  const { indexedTags, others, below } = listConditions(t, query, values, prefixTypes);
  const where = indexedTags === null ? others : [indexedTags, ...others];
  const source = indexedTags === null ? `${t.jobs} j` : `(SELECT * FROM ${t.jobs} j WHERE ${indexedTags} OFFSET 0) j`;
  const select = (from: string, conditions: string[]) =>
    `SELECT ${jobColumns('j')} FROM ${from}${conditions.length > 0 ? ` WHERE ${conditions.join(' AND ')}` : ''}`;
  if (query.limit === undefined) {
    const offset = query.offset === undefined ? '' : ` OFFSET ${param(query.offset)}`;
    return { text: `${select(source, others)} ORDER BY j.id DESC${offset}`, values };
  }
  const limit = param(query.limit);
  const offset = param(query.offset ?? 0);
  const reach = query.limit + (query.offset ?? 0);
  const members = Object.values({ ...query.filter, status: query.status }).filter((v) => v !== undefined).length;
  // A type prefix is a list of types, which no index returns in id order: its page is looked
  // for among the newest jobs first, as a combination of conditions is.
  const combined = members > 1 || indexedTags !== null || prefixTypes !== undefined;
  const windowed = combined && reach <= RECENT_WINDOW;
  if (!windowed) {
    return {
      text: `${select(source, others)} ORDER BY j.id DESC LIMIT ${limit} OFFSET ${offset}`,
      values,
      indexReads: indexedTags === null && prefixTypes === undefined,
    };
  }

  const needed = `${param(reach)}::bigint`;
  const text = `
WITH recent AS MATERIALIZED (
  SELECT j.* FROM (SELECT * FROM ${t.jobs}${below === null ? '' : ` WHERE id < ${below}`} ORDER BY id DESC LIMIT ${RECENT_WINDOW}) j
  WHERE ${where.join(' AND ')}
  ORDER BY j.id DESC
  LIMIT ${needed}
)
SELECT * FROM (
  (${select('recent j', [`(SELECT count(*) FROM recent) = ${needed}`])} ORDER BY j.id DESC OFFSET ${offset})
  UNION ALL
  (${select(source, [...others, `(SELECT count(*) FROM recent) < ${needed}`])} ORDER BY j.id DESC LIMIT ${limit} OFFSET ${offset})
) page
ORDER BY page.id DESC`;
  return { text, values };
}

const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/**
 * A listing with `payloadContains`: the newest `searchLimits.payloadScan` jobs matching the rest
 * of the query (read as that listing is), then those whose payload JSON text holds the text,
 * letters A–Z in any case (translate/strpos: no LIKE pattern to escape, no locale's case rules),
 * paged. The bound makes the work of a search that matches nothing that of one page of 10,000.
 */
function payloadSearchSql(
  t: SchemaNames,
  query: JobQuery,
  prefixTypes: string[] | undefined,
): { text: string; values: unknown[] } {
  const { payloadContains, limit, offset, before, ...rest } = query;
  // The search looks at the same newest jobs with a keyset page as without: `before` pages
  // through what it found.
  const scan = listJobsSql(t, { ...rest, limit: searchLimits.payloadScan, offset: 0 }, prefixTypes);
  const values = [...scan.values];
  const param = (value: unknown): string => {
    values.push(value);
    return `$${values.length}`;
  };
  const below = before === undefined ? '' : ` AND found.id < ${param(before)}`;
  const found = `strpos(translate(found.payload::text, '${UPPER}', '${UPPER.toLowerCase()}'), ${param(lowerAscii(payloadContains!))}) > 0${below}`;
  const page = `${limit === undefined ? '' : ` LIMIT ${param(limit)}`} OFFSET ${param(offset ?? 0)}`;
  return { text: `SELECT * FROM (${scan.text}) found WHERE ${found} ORDER BY found.id DESC${page}`, values };
}

/**
 * How many jobs a query matches, counting no further than its limit. With a status (or else a job
 * type) the matches are read in the order of that column's index, the column bounded as a range
 * so that no other index yields the order without a sort (an equality would let the planner walk
 * the primary key past every job of other statuses): run with INDEX_READS (index-walk.ts), the
 * read walks the status or type index and stops at the limit, whatever the statistics say. The
 * other filters are checked on each row read. Without either, the planner's plan for the filter
 * reads until the limit, like a listing. Rows: n.
 */
export function countJobsSql(
  t: SchemaNames,
  query: CountQuery,
): { text: string; values: unknown[]; indexReads: boolean } {
  const values: unknown[] = [];
  const param = (value: unknown): string => {
    values.push(value);
    return `$${values.length}`;
  };
  const { status } = query;
  const jobType = status === undefined ? query.filter?.jobType : undefined;
  const walk =
    status !== undefined
      ? { column: 'status', value: status }
      : jobType !== undefined
        ? { column: 'job_type', value: jobType }
        : null;
  const filter = walk?.column === 'job_type' ? { ...query.filter, jobType: undefined } : query.filter;
  const where = filterConditions(t, filter, values);
  let order = '';
  if (walk !== null) {
    const value = param(walk.value);
    where.unshift(`j.${walk.column} >= ${value} AND j.${walk.column} <= ${value}`);
    order = ` ORDER BY j.${walk.column}, j.id`;
  }
  const condition = where.length > 0 ? ` WHERE ${where.join(' AND ')}` : '';
  const limit = param(query.limit);
  const text = `SELECT count(*)::int AS n FROM (SELECT 1 FROM ${t.jobs} j${condition}${order} LIMIT ${limit}) s`;
  return { text, values, indexReads: walk !== null };
}

/**
 * The conditions of a list query, the tag condition a GIN index can serve (`all`, `any` or
 * `exact` with at least one tag) kept apart from the others. A type prefix is given as the types
 * it stands for (`prefixTypes`, read first by prefixTypesSql), so the planner sees which types
 * they are, as it does for one `jobType`. `below` is the parameter of a keyset page's id bound.
 */
function listConditions(
  t: SchemaNames,
  query: JobQuery,
  values: unknown[],
  prefixTypes: string[] | undefined,
): { indexedTags: string | null; others: string[]; below: string | null } {
  const { tags, jobTypePrefix, ...fields } = query.filter ?? {};
  if (jobTypePrefix !== undefined && prefixTypes === undefined) {
    throw new Error('listJobsSql: a jobTypePrefix needs the types it stands for (prefixTypesSql)');
  }
  const param = (value: unknown): string => {
    values.push(value);
    return `$${values.length}`;
  };
  const others = filterConditions(t, fields, values);
  if (query.status !== undefined) others.push(`j.status = ${param(query.status)}`);
  if (prefixTypes !== undefined) others.push(`j.job_type = ANY(${param(prefixTypes)}::text[])`);
  const below = query.before === undefined ? null : `${param(query.before)}::bigint`;
  if (below !== null) others.push(`j.id < ${below}`);
  if (tags === undefined) return { indexedTags: null, others, below };
  const [condition] = filterConditions(t, { tags }, values);
  if ((tags.mode ?? 'all') === 'none' || tags.values.length === 0)
    return { indexedTags: null, others: [...others, condition!], below };
  return { indexedTags: condition!, others, below };
}
