/**
 * `jobTypePrefix` on PostgreSQL: the types are found by a walk of the job type index from the
 * prefix on, which reads at most searchLimits.prefixTypes distinct types and, in a collation
 * that sorts other types between those of the prefix, does not stop at the first that does not
 * start with it.
 */
import { afterEach, expect, it } from 'vitest';
import { searchLimits } from '../../src/search-limits.js';
import { usePostgres } from './support.js';

const DEFAULT_LIMITS = { ...searchLimits };

const ctx = usePostgres();

afterEach(() => {
  Object.assign(searchLimits, DEFAULT_LIMITS);
});

const typesOf = async (queue: ReturnType<typeof ctx.queue>, prefix: string) =>
  (await queue.queryJobs({ jobTypePrefix: prefix })).map((j) => j.jobType);

it('reads at most searchLimits.prefixTypes distinct types from the prefix on', async () => {
  const queue = ctx.queue();
  await queue.addJobs(['a.1', 'a.2', 'a.3', 'b'].map((jobType) => ({ jobType, payload: {} })));
  expect(await typesOf(queue, 'a.')).toEqual(['a.3', 'a.2', 'a.1']);
  searchLimits.prefixTypes = 2;
  expect(await typesOf(queue, 'a.')).toEqual(['a.2', 'a.1']);
  expect(await queue.cancelAllUpcomingJobs({ jobTypePrefix: 'a.' })).toBe(2);
});

it('finds the types of a prefix that a linguistic collation sorts apart', async () => {
  // Punctuation ignored at the first level (ICU `ka-shifted`, as glibc's en_US does): emailer
  // sorts between email.a and email.x.
  await ctx.sql.query(`CREATE COLLATION "${ctx.schema}".shifted (provider = icu, locale = 'en-u-ka-shifted')`);
  await ctx.sql.query(
    `ALTER TABLE ${ctx.table('job_queue')} ALTER COLUMN job_type TYPE text COLLATE "${ctx.schema}".shifted`,
  );
  const { rows } = await ctx.sql.query<{ job_type: string }>(
    `SELECT unnest(ARRAY['email.a', 'email.x', 'emailer']::text[] COLLATE "${ctx.schema}".shifted) AS job_type ORDER BY 1`,
  );
  expect(rows.map((r) => r.job_type)).toEqual(['email.a', 'emailer', 'email.x']);
  const queue = ctx.queue();
  await queue.addJobs(['email.a', 'emailer', 'email.x'].map((jobType) => ({ jobType, payload: {} })));
  expect(await typesOf(queue, 'email.')).toEqual(['email.x', 'email.a']);
});
