/**
 * Finding jobs: `jobTypePrefix` (a job filter member, §2.7, so listings and bulk changes take it)
 * and `payloadContains` (queryJobs only, bounded by searchLimits.payloadScan), the same on every
 * backend.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { ValidationError } from '../../src/errors.js';
import { scriptSlice } from '../../src/backends/redis/slices.js';
import { searchLimits } from '../../src/search-limits.js';
import type { JobQueryFilter } from '../../src/types.js';
import { forEachBackend } from '../helpers/backends.js';
import { expectFailure, ids } from './assertions.js';

const DEFAULT_LIMITS = { ...searchLimits };
const DEFAULT_SLICE = { ...scriptSlice };

forEachBackend('jobTypePrefix (§2.7)', (ctx) => {
  // Newest first: sms, emailer, email.receive, email.send, email.send (older).
  let send1: number, send2: number, receive: number, emailer: number, sms: number;
  beforeEach(async () => {
    [send1, send2, receive, emailer, sms] = (await ctx.queue.addJobs([
      { jobType: 'email.send', payload: {} },
      { jobType: 'email.send', payload: {} },
      { jobType: 'email.receive', payload: {} },
      { jobType: 'emailer', payload: {} },
      { jobType: 'sms', payload: {} },
    ])) as [number, number, number, number, number];
  });

  const query = async (filter: JobQueryFilter, limit?: number, offset?: number) =>
    ids(await ctx.queue.queryJobs(filter, limit, offset));

  it('lists the jobs whose type starts with the prefix, newest first', async () => {
    expect(await query({ jobTypePrefix: 'email.' })).toEqual([receive, send2, send1]);
    expect(await query({ jobTypePrefix: 'email' })).toEqual([emailer, receive, send2, send1]);
    expect(await query({ jobTypePrefix: 'email.send' })).toEqual([send2, send1]);
    expect(await query({ jobTypePrefix: 's' })).toEqual([sms]);
    expect(await query({ jobTypePrefix: 'x' })).toEqual([]);
    expect(ids(await ctx.queue.getJobs({ jobTypePrefix: 'email.' }))).toEqual([receive, send2, send1]);
  });

  it('is case-sensitive and takes no wildcard', async () => {
    expect(await query({ jobTypePrefix: 'Email.' })).toEqual([]);
    expect(await query({ jobTypePrefix: 'email%' })).toEqual([]);
    expect(await query({ jobTypePrefix: 'email_' })).toEqual([]);
  });

  it('combines with a status, a job type and paging', async () => {
    await ctx.queue.cancelJob(send2);
    expect(await query({ jobTypePrefix: 'email.', status: 'pending' })).toEqual([receive, send1]);
    expect(await query({ jobTypePrefix: 'email.', status: 'cancelled' })).toEqual([send2]);
    expect(await query({ jobTypePrefix: 'email.', jobType: 'email.receive' })).toEqual([receive]);
    expect(await query({ jobTypePrefix: 'sms', jobType: 'email.receive' })).toEqual([]);
    expect(await query({ jobTypePrefix: 'email' }, 2)).toEqual([emailer, receive]);
    expect(await query({ jobTypePrefix: 'email' }, 2, 2)).toEqual([send2, send1]);
  });

  it('selects the jobs of a bulk change', async () => {
    expect(await ctx.queue.cancelAllUpcomingJobs({ jobTypePrefix: 'email.' })).toBe(3);
    expect(await query({ status: 'pending' })).toEqual([sms, emailer]);
    expect(await ctx.queue.editAllPendingJobs({ jobTypePrefix: 'em' }, { priority: 7 })).toBe(1);
    expect((await ctx.queue.getJob(emailer))?.priority).toBe(7);
  });

  it('finds every type of a prefix shared by many types', async () => {
    const many = await ctx.queue.addJobs(
      Array.from({ length: 60 }, (_, i) => ({ jobType: `bulk.${String(i).padStart(2, '0')}`, payload: {} })),
    );
    const found = await query({ jobTypePrefix: 'bulk.' });
    expect(found).toEqual([...many].reverse());
    expect(await query({ jobTypePrefix: 'bulk.' }, 5, 50)).toEqual(many.slice(5, 10).reverse());
  });
});

forEachBackend('payloadContains (§4.2)', (ctx) => {
  // Newest first: j5 … j1.
  let j1: number, j2: number, j3: number, j4: number, j5: number;
  beforeEach(async () => {
    [j1, j2, j3, j4, j5] = (await ctx.queue.addJobs([
      { jobType: 'email', payload: { to: 'Alice@Example.com' } },
      { jobType: 'email', payload: { to: 'bob@example.com', note: 'ÉTÉ' } },
      { jobType: 'sms', payload: { to: 'alice', nested: { tags: ['VIP'] } } },
      { jobType: 'email', payload: { to: 'carol@example.com' } },
      { jobType: 'email', payload: 'ALICE plain string' },
    ])) as [number, number, number, number, number];
  });
  afterEach(() => {
    Object.assign(searchLimits, DEFAULT_LIMITS);
  });

  const query = async (filter: JobQueryFilter, limit?: number, offset?: number) =>
    ids(await ctx.queue.queryJobs(filter, limit, offset));

  it('finds text anywhere in the payload, letters A–Z in any case', async () => {
    expect(await query({ payloadContains: 'alice' })).toEqual([j5, j3, j1]);
    expect(await query({ payloadContains: 'ALICE@example' })).toEqual([j1]);
    expect(await query({ payloadContains: 'vip' })).toEqual([j3]);
    expect(await query({ payloadContains: 'example.com' })).toEqual([j4, j2, j1]);
    expect(await query({ payloadContains: 'ÉTÉ' })).toEqual([j2]);
    expect(await query({ payloadContains: 'nobody' })).toEqual([]);
  });

  it('takes the text literally: no wildcards', async () => {
    expect(await query({ payloadContains: '%' })).toEqual([]);
    expect(await query({ payloadContains: 'a_ice' })).toEqual([]);
    expect(await query({ payloadContains: '.*' })).toEqual([]);
  });

  it('combines with the other members and pages', async () => {
    await ctx.queue.cancelJob(j4);
    expect(await query({ payloadContains: 'alice', jobType: 'email' })).toEqual([j5, j1]);
    expect(await query({ payloadContains: 'alice', jobTypePrefix: 'sm' })).toEqual([j3]);
    expect(await query({ payloadContains: 'example', status: 'cancelled' })).toEqual([j4]);
    expect(await query({ payloadContains: 'example', status: 'pending' })).toEqual([j2, j1]);
    expect(await query({ payloadContains: 'alice' }, 2)).toEqual([j5, j3]);
    expect(await query({ payloadContains: 'alice' }, 2, 2)).toEqual([j1]);
  });

  it('looks at no more than the newest searchLimits.payloadScan jobs matching the other members', async () => {
    searchLimits.payloadScan = 3;
    // The newest 3 jobs: j5, j4, j3; j1 is past the bound.
    expect(await query({ payloadContains: 'alice' })).toEqual([j5, j3]);
    // The newest 3 email jobs: j5, j4, j2; j1 is past the bound.
    expect(await query({ payloadContains: 'example', jobType: 'email' })).toEqual([j4, j2]);
    // One sms job: the bound is not reached.
    expect(await query({ payloadContains: 'alice', jobType: 'sms' })).toEqual([j3]);
    searchLimits.payloadScan = 1;
    expect(await query({ payloadContains: 'example' })).toEqual([]);
    expect(await query({ payloadContains: 'alice' })).toEqual([j5]);
  });
});

forEachBackend('payloadContains over a walk in many short scripts', (ctx) => {
  afterEach(() => {
    Object.assign(searchLimits, DEFAULT_LIMITS);
    Object.assign(scriptSlice, DEFAULT_SLICE);
  });

  it('keeps the bound and finds the same jobs when each script looks at 2 jobs (Redis)', async () => {
    // Newest first: 12 jobs, every third mentions alice, every other one is of type `a.x`.
    const added = await ctx.queue.addJobs(
      Array.from({ length: 12 }, (_, i) => ({
        jobType: i % 2 === 0 ? 'a.x' : 'b',
        payload: { who: i % 3 === 0 ? 'alice' : 'bob', i },
      })),
    );
    const newestFirst = [...added].reverse();
    scriptSlice.read = 2;
    searchLimits.payloadScan = 7;
    const query = async (filter: JobQueryFilter, limit?: number, offset?: number) =>
      ids(await ctx.queue.queryJobs(filter, limit, offset));
    // The newest 7 jobs are i = 11 … 5: alice in i = 9 and 6.
    expect(await query({ payloadContains: 'alice' })).toEqual([newestFirst[2], newestFirst[5]]);
    expect(await query({ payloadContains: 'alice' }, 1, 1)).toEqual([newestFirst[5]]);
    // All 6 `a.x` jobs (even i), within the bound: alice in i = 6 and 0.
    expect(await query({ payloadContains: 'alice', jobTypePrefix: 'a.' })).toEqual([newestFirst[5], newestFirst[11]]);
  });
});

forEachBackend('finding jobs: validation (§7)', (ctx) => {
  it.each([
    ['empty prefix', { jobTypePrefix: '' }, 'filter.jobTypePrefix', ['non-empty string']],
    ['prefix not a string', { jobTypePrefix: 3 }, 'filter.jobTypePrefix', ['non-empty string']],
    ['empty search', { payloadContains: '' }, 'filter.payloadContains', ['non-empty string']],
    ['search not a string', { payloadContains: ['a'] }, 'filter.payloadContains', ['non-empty string']],
    ['search too long', { payloadContains: 'x'.repeat(201) }, 'filter.payloadContains', ['at most 200 characters']],
  ] as const)(
    'rejects a bad filter (%s) with a ValidationError naming it',
    async (_label, filter, field, fragments) => {
      await expectFailure(ctx.queue.queryJobs(filter as unknown as JobQueryFilter), ValidationError, {
        field,
        message: ['`' + field + '`', ...fragments],
      });
    },
  );

  it('takes payloadContains in queryJobs only, not in the job filter of bulk changes', async () => {
    await expectFailure(
      ctx.queue.cancelAllUpcomingJobs({ payloadContains: 'x' } as unknown as JobQueryFilter),
      ValidationError,
      { field: 'filter.payloadContains' },
    );
  });
});

forEachBackend('getJobTypes', (ctx) => {
  afterEach(() => {
    Object.assign(searchLimits, DEFAULT_LIMITS);
  });

  it('lists the distinct job types, sorted, or those starting with a prefix', async () => {
    expect(await ctx.queue.getJobTypes()).toEqual([]);
    await ctx.queue.addJobs(
      ['sms', 'email.send', 'email.send', 'emailer', 'email.bounce', 'Email.x'].map((jobType) => ({
        jobType,
        payload: {},
      })),
    );
    expect(await ctx.queue.getJobTypes()).toEqual(['Email.x', 'email.bounce', 'email.send', 'emailer', 'sms']);
    expect(await ctx.queue.getJobTypes('email.')).toEqual(['email.bounce', 'email.send']);
    expect(await ctx.queue.getJobTypes('email')).toEqual(['email.bounce', 'email.send', 'emailer']);
    expect(await ctx.queue.getJobTypes('x')).toEqual([]);
  });

  it('keeps a type while any job of it is stored', async () => {
    const [a] = await ctx.queue.addJobs([{ jobType: 'once', payload: {} }]);
    await ctx.queue.cancelJob(a!);
    expect(await ctx.queue.getJobTypes()).toEqual(['once']);
  });

  it('returns at most searchLimits.prefixTypes types', async () => {
    await ctx.queue.addJobs(['t.1', 't.2', 't.3'].map((jobType) => ({ jobType, payload: {} })));
    searchLimits.prefixTypes = 2;
    expect(await ctx.queue.getJobTypes('t.')).toEqual(['t.1', 't.2']);
  });

  it('rejects a prefix that is not a string', async () => {
    await expectFailure(ctx.queue.getJobTypes(3 as unknown as string), ValidationError, { field: 'prefix' });
  });
});
