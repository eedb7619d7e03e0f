/**
 * Retrieving jobs (SPEC §4.2) with the job filter of §2.7; lists are newest first (DETAILS).
 */
import { beforeEach, expect, it } from 'vitest';
import type { JobFilter } from '../../src/types.js';
import { forEachBackend } from '../helpers/backends.js';
import { ids } from './assertions.js';

const T1 = new Date('2030-01-01T00:00:00.000Z');
const T2 = new Date('2030-01-02T00:00:00.000Z');
const T3 = new Date('2030-01-03T00:00:00.000Z');
const T4 = new Date('2030-01-04T00:00:00.000Z');

forEachBackend('getJob / getJobs (§4.2, §2.7)', (ctx) => {
  // Five jobs, added in this order (ids ascending), so newest first is j5, j4, j3, j2, j1.
  let j1: number, j2: number, j3: number, j4: number, j5: number;
  beforeEach(async () => {
    [j1, j2, j3, j4, j5] = (await ctx.queue.addJobs([
      { jobType: 'email', payload: { n: 1 }, priority: 0, runAt: T1, tags: ['a'] },
      { jobType: 'email', payload: { n: 2 }, priority: 5, runAt: T2, tags: ['a', 'b'] },
      { jobType: 'sms', payload: { n: 3 }, priority: 5, runAt: T3, tags: ['b', 'c'] },
      { jobType: 'sms', payload: { n: 4 }, priority: 0, runAt: T2 },
      { jobType: 'push', payload: { n: 5 }, priority: -1, runAt: T4, tags: ['a', 'b', 'c'] },
    ])) as [number, number, number, number, number];
  });

  const query = async (filter?: JobFilter, limit?: number, offset?: number) =>
    ids(await ctx.queue.getJobs(filter, limit, offset));

  it('getJob returns the job, and null for an unknown id', async () => {
    expect(await ctx.queue.getJob(j3)).toMatchObject({ id: j3, jobType: 'sms', payload: { n: 3 }, runAt: T3 });
    expect(await ctx.queue.getJob(j5 + 1000)).toBeNull();
    expect(await ctx.queue.getJob(Number.MAX_SAFE_INTEGER)).toBeNull();
  });

  it('getJobs without a filter returns every job, newest first', async () => {
    expect(await query()).toEqual([j5, j4, j3, j2, j1]);
    expect(await query({})).toEqual([j5, j4, j3, j2, j1]);
  });

  it('filters by jobType', async () => {
    expect(await query({ jobType: 'email' })).toEqual([j2, j1]);
    expect(await query({ jobType: 'sms' })).toEqual([j4, j3]);
    expect(await query({ jobType: 'unknown' })).toEqual([]);
  });

  it('matches jobType exactly, not by prefix', async () => {
    const other = await ctx.queue.addJob({ jobType: 'emails', payload: {} });
    expect(await query({ jobType: 'email' })).toEqual([j2, j1]);
    expect(await query({ jobType: 'emails' })).toEqual([other]);
  });

  it('filters by priority', async () => {
    expect(await query({ priority: 5 })).toEqual([j3, j2]);
    expect(await query({ priority: 0 })).toEqual([j4, j1]);
    expect(await query({ priority: -1 })).toEqual([j5]);
    expect(await query({ priority: 7 })).toEqual([]);
  });

  it('filters by an exact runAt Date', async () => {
    expect(await query({ runAt: T2 })).toEqual([j4, j2]);
    expect(await query({ runAt: new Date(T2.getTime() + 1) })).toEqual([]);
  });

  it.each([
    ['eq', { eq: T2 }, ['j4', 'j2']],
    ['gt', { gt: T2 }, ['j5', 'j3']],
    ['gte', { gte: T2 }, ['j5', 'j4', 'j3', 'j2']],
    ['lt', { lt: T2 }, ['j1']],
    ['lte', { lte: T2 }, ['j4', 'j2', 'j1']],
    ['gte + lt', { gte: T2, lt: T4 }, ['j4', 'j3', 'j2']],
    ['gt + lte', { gt: T1, lte: T3 }, ['j4', 'j3', 'j2']],
    ['an empty range', { gt: T4 }, []],
  ] as const)('filters by a runAt range: %s', async (_label, range, expected) => {
    const byName = { j1, j2, j3, j4, j5 };
    expect(await query({ runAt: range })).toEqual(expected.map((name) => byName[name]));
  });

  it.each([
    ['all (default mode)', { values: ['a', 'b'] }, ['j5', 'j2']],
    ['all', { values: ['a', 'b'], mode: 'all' }, ['j5', 'j2']],
    ['all, one tag', { values: ['c'], mode: 'all' }, ['j5', 'j3']],
    ['any', { values: ['a', 'c'], mode: 'any' }, ['j5', 'j3', 'j2', 'j1']],
    ['any, unknown tag', { values: ['zzz'], mode: 'any' }, []],
    ['none', { values: ['a'], mode: 'none' }, ['j4', 'j3']],
    ['none, two tags', { values: ['a', 'c'], mode: 'none' }, ['j4']],
    ['exact', { values: ['a', 'b'], mode: 'exact' }, ['j2']],
    ['exact, other order', { values: ['b', 'a'], mode: 'exact' }, ['j2']],
    ['exact, one tag', { values: ['a'], mode: 'exact' }, ['j1']],
    ['exact, no match', { values: ['a', 'c'], mode: 'exact' }, []],
  ] as const)('filters by tags: %s', async (_label, tags, expected) => {
    const byName = { j1, j2, j3, j4, j5 };
    expect(await query({ tags: { values: [...tags.values], mode: 'mode' in tags ? tags.mode : undefined } })).toEqual(
      expected.map((name) => byName[name]),
    );
  });

  it('matches tags exactly, not by prefix', async () => {
    const team = await ctx.queue.addJob({ jobType: 't', payload: {}, tags: ['team'] });
    const mate = await ctx.queue.addJob({ jobType: 't', payload: {}, tags: ['teammate', 'env:prod-eu'] });
    expect(await query({ tags: { values: ['team'] } })).toEqual([team]);
    expect(await query({ tags: { values: ['env:prod'], mode: 'any' } })).toEqual([]);
    expect(await query({ tags: { values: ['env:prod-eu'], mode: 'any' } })).toEqual([mate]);
  });

  it('combines filter members (all must match)', async () => {
    expect(await query({ jobType: 'sms', priority: 5 })).toEqual([j3]);
    expect(await query({ jobType: 'email', tags: { values: ['b'], mode: 'any' } })).toEqual([j2]);
    expect(await query({ priority: 0, runAt: { lte: T2 } })).toEqual([j4, j1]);
    expect(
      await query({ jobType: 'push', priority: -1, runAt: { gte: T4 }, tags: { values: ['c'], mode: 'all' } }),
    ).toEqual([j5]);
    expect(await query({ jobType: 'push', priority: 5 })).toEqual([]);
    expect(await query({ priority: 5, tags: { values: ['c'], mode: 'none' } })).toEqual([j2]);
  });

  it('paginates with limit and offset, without a filter', async () => {
    expect(await query(undefined, 2)).toEqual([j5, j4]);
    expect(await query(undefined, 2, 2)).toEqual([j3, j2]);
    expect(await query(undefined, 2, 4)).toEqual([j1]);
    expect(await query(undefined, 2, 5)).toEqual([]);
    expect(await query(undefined, undefined, 3)).toEqual([j2, j1]);
    expect(await query(undefined, 0)).toEqual([]);
  });

  it('paginates with limit and offset, with a filter', async () => {
    const filter: JobFilter = { tags: { values: ['a', 'b', 'c'], mode: 'any' } }; // j5, j3, j2, j1
    expect(await query(filter, 2)).toEqual([j5, j3]);
    expect(await query(filter, 2, 1)).toEqual([j3, j2]);
    expect(await query(filter, 10, 3)).toEqual([j1]);
    expect(await query(filter, undefined, 2)).toEqual([j2, j1]);
  });

  it('getAllJobs lists every job newest first, with pagination', async () => {
    expect(ids(await ctx.queue.getAllJobs())).toEqual([j5, j4, j3, j2, j1]);
    expect(ids(await ctx.queue.getAllJobs(3))).toEqual([j5, j4, j3]);
    expect(ids(await ctx.queue.getAllJobs(3, 3))).toEqual([j2, j1]);
  });

  it('getJobsByStatus lists the jobs of one status, newest first, with pagination', async () => {
    await ctx.queue.cancelJob(j3);
    await ctx.queue.cancelJob(j1);
    expect(ids(await ctx.queue.getJobsByStatus('cancelled'))).toEqual([j3, j1]);
    expect(ids(await ctx.queue.getJobsByStatus('pending'))).toEqual([j5, j4, j2]);
    expect(ids(await ctx.queue.getJobsByStatus('pending', 1, 1))).toEqual([j4]);
    expect(ids(await ctx.queue.getJobsByStatus('pending', 5, 2))).toEqual([j2]);
    expect(ids(await ctx.queue.getJobsByStatus('completed'))).toEqual([]);
    expect(ids(await ctx.queue.getJobsByStatus('failed'))).toEqual([]);
    expect(ids(await ctx.queue.getJobsByStatus('processing'))).toEqual([]);
    expect(ids(await ctx.queue.getJobsByStatus('waiting'))).toEqual([]);
  });

  it('getJobsByTags uses mode all by default, and takes mode, limit and offset', async () => {
    expect(ids(await ctx.queue.getJobsByTags(['a']))).toEqual([j5, j2, j1]);
    expect(ids(await ctx.queue.getJobsByTags(['a', 'b']))).toEqual([j5, j2]);
    expect(ids(await ctx.queue.getJobsByTags(['a', 'c'], 'any'))).toEqual([j5, j3, j2, j1]);
    expect(ids(await ctx.queue.getJobsByTags(['a', 'c'], 'any', 2, 1))).toEqual([j3, j2]);
    expect(ids(await ctx.queue.getJobsByTags(['b'], 'none'))).toEqual([j4, j1]);
    expect(ids(await ctx.queue.getJobsByTags(['c', 'b'], 'exact'))).toEqual([j3]);
  });

  it('list results are complete job records', async () => {
    const [first] = await ctx.queue.getJobs({ jobType: 'push' });
    expect(first).toEqual(await ctx.queue.getJob(j5));
  });
});

forEachBackend('getJobs without a limit (§4.2, DETAILS)', (ctx) => {
  it('returns all matching jobs when no limit is given', async () => {
    const added = await ctx.queue.addJobs(Array.from({ length: 250 }, (_, i) => ({ jobType: 'many', payload: { i } })));
    expect(ids(await ctx.queue.getAllJobs())).toEqual([...added].reverse());
    expect(ids(await ctx.queue.getJobs({ jobType: 'many' }))).toEqual([...added].reverse());
    expect(await ctx.queue.getJobsByStatus('pending')).toHaveLength(250);
  });
});
