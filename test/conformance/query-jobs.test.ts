/**
 * queryJobs: the job filter of §2.7 plus a status, in one list operation (newest first, paged
 * like the other list operations of §4.2). The dashboard's list reads through it.
 */
import { beforeEach, expect, it } from 'vitest';
import { ValidationError } from '../../src/errors.js';
import type { JobQueryFilter } from '../../src/types.js';
import { forEachBackend } from '../helpers/backends.js';
import { expectFailure, ids } from './assertions.js';
import { completeJob } from './job-states.js';

const T1 = new Date('2030-01-01T00:00:00.000Z');
const T2 = new Date('2030-01-02T00:00:00.000Z');

forEachBackend('queryJobs (§4.2, §2.7 with a status)', (ctx) => {
  // Newest first: j6 … j1. Cancelled: j1, j4, j5. Completed: j6. Pending: j2, j3.
  let j1: number, j2: number, j3: number, j4: number, j5: number, j6: number;
  beforeEach(async () => {
    [j1, j2, j3, j4, j5] = (await ctx.queue.addJobs([
      { jobType: 'email', payload: {}, priority: 5, runAt: T1, tags: ['a'] },
      { jobType: 'email', payload: {}, priority: 5, runAt: T2, tags: ['a', 'b'] },
      { jobType: 'sms', payload: {}, priority: 0, runAt: T1, tags: ['b'] },
      { jobType: 'sms', payload: {}, priority: 5, runAt: T2, tags: ['a'] },
      { jobType: 'email', payload: {}, priority: 0, runAt: T2 },
    ])) as [number, number, number, number, number];
    j6 = await ctx.queue.addJob({ jobType: 'report', payload: {}, tags: ['a'] });
    for (const id of [j1, j4, j5]) await ctx.queue.cancelJob(id);
    await completeJob(ctx.queue, j6);
  });

  const query = async (filter?: JobQueryFilter, limit?: number, offset?: number) =>
    ids(await ctx.queue.queryJobs(filter, limit, offset));

  it('filters by status and jobType together', async () => {
    expect(await query({ status: 'cancelled', jobType: 'email' })).toEqual([j5, j1]);
    expect(await query({ status: 'pending', jobType: 'email' })).toEqual([j2]);
    expect(await query({ status: 'pending', jobType: 'sms' })).toEqual([j3]);
    expect(await query({ status: 'completed', jobType: 'sms' })).toEqual([]);
  });

  it('combines a status with every other filter member', async () => {
    expect(await query({ status: 'cancelled', tags: { values: ['a'] } })).toEqual([j4, j1]);
    expect(await query({ status: 'cancelled', priority: 5 })).toEqual([j4, j1]);
    expect(await query({ status: 'cancelled', runAt: { gte: T2 } })).toEqual([j5, j4]);
    expect(await query({ status: 'pending', tags: { values: ['b'], mode: 'any' }, runAt: T1 })).toEqual([j3]);
    expect(await query({ status: 'completed', tags: { values: ['a'] } })).toEqual([j6]);
  });

  it('filters by status alone, by the job filter alone, or lists every job', async () => {
    expect(await query({ status: 'cancelled' })).toEqual(ids(await ctx.queue.getJobsByStatus('cancelled')));
    expect(await query({ jobType: 'email' })).toEqual(ids(await ctx.queue.getJobs({ jobType: 'email' })));
    expect(await query()).toEqual([j6, j5, j4, j3, j2, j1]);
    expect(await query({})).toEqual([j6, j5, j4, j3, j2, j1]);
  });

  it('paginates with limit and offset, newest first', async () => {
    expect(await query({ status: 'cancelled' }, 2)).toEqual([j5, j4]);
    expect(await query({ status: 'cancelled' }, 2, 2)).toEqual([j1]);
    expect(await query({ status: 'cancelled', jobType: 'email' }, 1, 1)).toEqual([j1]);
    expect(await query({ status: 'cancelled' }, undefined, 1)).toEqual([j4, j1]);
    expect(await query({ status: 'cancelled' }, 0)).toEqual([]);
  });

  it('returns complete job records', async () => {
    const [job] = await ctx.queue.queryJobs({ status: 'completed' });
    expect(job).toEqual(await ctx.queue.getJob(j6));
  });
});

forEachBackend('queryJobs validation (§7)', (ctx) => {
  it.each([
    ['unknown status', { status: 'done' }, 'filter.status', ["'pending'", "'waiting'", '"done" (string)']],
    ['status not a string', { status: 1 }, 'filter.status', ["'cancelled'"]],
    ['jobType not a string', { jobType: 3 }, 'filter.jobType', []],
    ['bad tag mode', { status: 'pending', tags: { values: ['a'], mode: 'most' } }, 'filter.tags.mode', ["'any'"]],
    [
      'unknown member',
      { statuses: ['pending'] },
      'filter.statuses',
      ['Did you mean `status`?', 'status, jobType, jobTypePrefix, priority, runAt, tags, payloadContains'],
    ],
    ['filter not an object', 'failed', 'filter', []],
  ] as const)(
    'rejects a bad filter (%s) with a ValidationError naming it',
    async (_label, filter, field, fragments) => {
      await expectFailure(ctx.queue.queryJobs(filter as unknown as JobQueryFilter), ValidationError, {
        field,
        message: ['`' + field + '`', ...fragments],
      });
    },
  );

  it.each([
    ['negative limit', [-1, undefined], 'limit'],
    ['fractional limit', [1.5, undefined], 'limit'],
    ['negative offset', [10, -1], 'offset'],
  ] as const)('rejects a %s', async (_label, [limit, offset], field) => {
    await expectFailure(ctx.queue.queryJobs({ status: 'pending' }, limit, offset), ValidationError, {
      field,
      message: ['`' + field + '`', 'integer'],
    });
  });
});
