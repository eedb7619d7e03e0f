/**
 * queryJobsPage: keyset pages of a listing (docs/querying.md, "Deep pages: keyset pagination").
 * Followed from `nextAfter` to `nextAfter`, the pages hold every matching job exactly once,
 * newest first, for every filter the listing takes, also when jobs are added and removed
 * between pages; the last page has no `nextAfter`. A bad `after` or `limit`, or an offset, is a
 * ValidationError naming it.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { scriptSlice } from '../../src/backends/redis/slices.js';
import { ValidationError } from '../../src/errors.js';
import type { JobPage, JobQueryFilter, JobStatus } from '../../src/types.js';
import { forEachBackend } from '../helpers/backends.js';
import { expectFailure, ids } from './assertions.js';

const T0 = new Date('2030-01-01T00:00:00.000Z');
const HOUR = 3_600_000;
const TYPES = ['email.send', 'email.bounce', 'sms', 'report'];
const DEFAULT_SLICE = { ...scriptSlice };

/** Every filter member the listing takes, alone and together. */
const FILTERS: Record<string, JobQueryFilter> = {
  none: {},
  status: { status: 'pending' },
  jobType: { jobType: 'sms' },
  jobTypePrefix: { jobTypePrefix: 'email.' },
  priority: { priority: 2 },
  'runAt exact': { runAt: new Date(T0.getTime() + 3 * HOUR) },
  'runAt range': { runAt: { gte: new Date(T0.getTime() + 2 * HOUR), lt: new Date(T0.getTime() + 5 * HOUR) } },
  'tags all': { tags: { values: ['t:1'], mode: 'all' } },
  'tags any': { tags: { values: ['t:1', 'u:2'], mode: 'any' } },
  'tags none': { tags: { values: ['t:0'], mode: 'none' } },
  'tags exact': { tags: { values: ['t:1', 'u:1'], mode: 'exact' } },
  'status and jobType': { status: 'cancelled', jobType: 'email.send' },
  'status and tags': { status: 'pending', tags: { values: ['t:2'] } },
  'jobTypePrefix and priority': { jobTypePrefix: 'email.', priority: 1 },
  payloadContains: { payloadContains: 'needle' },
  'payloadContains and status': { status: 'pending', payloadContains: 'NEEDLE' },
  'matches nothing': { jobType: 'nothing' },
};

forEachBackend('queryJobsPage: keyset pages (§4.2)', (ctx) => {
  afterEach(() => {
    Object.assign(scriptSlice, DEFAULT_SLICE);
  });

  /** `n` jobs of every type, priority, run time and tag; a payload with the needle on every third. */
  async function seed(n: number, from = 0): Promise<number[]> {
    const added = await ctx.queue.addJobs(
      Array.from({ length: n }, (_, k) => {
        const i = from + k;
        return {
          jobType: TYPES[i % TYPES.length]!,
          payload: { n: i, note: i % 3 === 0 ? 'a Needle here' : 'hay' },
          priority: i % 3,
          runAt: new Date(T0.getTime() + (i % 7) * HOUR),
          tags: i % 5 === 4 ? [] : [`t:${i % 3}`, `u:${i % 4}`],
        };
      }),
    );
    // A few cancelled, so a status filter leaves jobs out.
    for (const [k, id] of added.entries()) if ((from + k) % 4 === 1) await ctx.queue.cancelJob(id);
    return added;
  }

  /** Every page from the first, following `nextAfter`; `between` runs after each page. */
  async function allPages(
    filter: JobQueryFilter,
    limit: number,
    between?: (page: JobPage) => Promise<void>,
  ): Promise<JobPage[]> {
    const pages: JobPage[] = [];
    let after: number | null = null;
    do {
      const page = await ctx.queue.queryJobsPage(filter, { limit, after });
      pages.push(page);
      after = page.nextAfter;
      if (between) await between(page);
    } while (after !== null && pages.length < 100);
    return pages;
  }

  /** Removes a job whatever its status: a pending one is cancelled first. */
  async function remove(id: number): Promise<void> {
    await ctx.queue.cancelJob(id);
    await ctx.queue.deleteJob(id);
  }

  function expectWellFormed(pages: JobPage[], limit: number, what: string): void {
    for (const [i, page] of pages.entries()) {
      const last = i === pages.length - 1;
      expect(page.jobs.length, `${what}: page ${i} size`).toBeLessThanOrEqual(limit);
      if (last) expect(page.nextAfter, `${what}: the last page`).toBeNull();
      else {
        expect(page.jobs.length, `${what}: page ${i} is full`).toBe(limit);
        expect(page.nextAfter, `${what}: page ${i} goes on from its last job`).toBe(page.jobs.at(-1)!.id);
      }
    }
  }

  beforeEach(async () => {
    await seed(40);
  });

  it('pages through every matching job exactly once, newest first, for every filter', async () => {
    for (const [name, filter] of Object.entries(FILTERS)) {
      const every = ids(await ctx.queue.queryJobs(filter));
      for (const limit of [1, 3, 50]) {
        const pages = await allPages(filter, limit);
        expectWellFormed(pages, limit, `${name}, limit ${limit}`);
        expect(
          pages.flatMap((p) => ids(p.jobs)),
          `${name}, limit ${limit}`,
        ).toEqual(every);
      }
    }
  });

  it('pages the same when every walk goes in slices of two jobs (Redis)', async () => {
    scriptSlice.read = 2;
    for (const [name, filter] of Object.entries(FILTERS)) {
      const pages = await allPages(filter, 3);
      expectWellFormed(pages, 3, name);
      expect(
        pages.flatMap((p) => ids(p.jobs)),
        name,
      ).toEqual(ids(await ctx.queue.queryJobs(filter)));
    }
  });

  it('returns exactly the limit and no nextAfter when the last page is full', async () => {
    const every = ids(await ctx.queue.queryJobs({ jobType: 'sms' }));
    const page = await ctx.queue.queryJobsPage({ jobType: 'sms' }, { limit: every.length });
    expect(ids(page.jobs)).toEqual(every);
    expect(page.nextAfter).toBeNull();
    const fewer = await ctx.queue.queryJobsPage({ jobType: 'sms' }, { limit: every.length - 1 });
    expect(fewer.nextAfter).toBe(every.at(-2));
  });

  it('neither repeats nor misses a job when jobs are added and removed between pages', async () => {
    for (const [name, filter] of Object.entries(FILTERS)) {
      const matching = ids(await ctx.queue.queryJobs(filter));
      const seen = new Set<number>();
      const removedAhead = new Set<number>();
      let round = 0;
      const pages = await allPages(filter, 4, async (page) => {
        for (const id of ids(page.jobs)) seen.add(id);
        round++;
        // Newer jobs (some match) go in front, where an offset would shift every later page.
        await seed(3, 1000 + round * 3);
        // A job already listed goes away (an offset would then skip one), and one still to come.
        const listed = page.jobs.at(-1)?.id;
        if (listed !== undefined) await remove(listed);
        const ahead = matching.find((id) => !seen.has(id) && !removedAhead.has(id));
        if (ahead !== undefined) {
          removedAhead.add(ahead);
          await remove(ahead);
        }
      });
      expectWellFormed(pages, 4, name);
      // Exactly the jobs that matched before the first page, less those removed before their
      // page came: none twice, none of the newer ones, newest first.
      expect(
        pages.flatMap((p) => ids(p.jobs)),
        name,
      ).toEqual(matching.filter((id) => !removedAhead.has(id)));
    }
  });

  it('starts after any id: a removed job, or one that never matched, still marks the place', async () => {
    const every = ids(await ctx.queue.queryJobs({ status: 'pending' }));
    const cancelled = ids(await ctx.queue.queryJobs({ status: 'cancelled' }));
    const mark = cancelled[2]!;
    const page = await ctx.queue.queryJobsPage({ status: 'pending' }, { limit: 5, after: mark });
    expect(ids(page.jobs)).toEqual(every.filter((id) => id < mark).slice(0, 5));
    await ctx.queue.deleteJob(mark);
    const again = await ctx.queue.queryJobsPage({ status: 'pending' }, { limit: 5, after: mark });
    expect(ids(again.jobs)).toEqual(ids(page.jobs));
    const past = await ctx.queue.queryJobsPage({}, { after: 1 });
    expect(past).toEqual({ jobs: [], nextAfter: null });
  });

  it('lists 100 jobs when no limit is given', async () => {
    await seed(80, 40);
    const page = await ctx.queue.queryJobsPage();
    expect(page.jobs).toHaveLength(100);
    expect(ids(page.jobs)).toEqual(ids(await ctx.queue.getAllJobs(100)));
    expect(page.nextAfter).toBe(page.jobs[99]!.id);
  });

  it('refuses a bad after, a bad limit, an offset or a bad filter, naming it', async () => {
    for (const after of [0, -3, 1.5, '12', Number.NaN, Number.MAX_SAFE_INTEGER + 2]) {
      await expectFailure(ctx.queue.queryJobsPage({}, { after: after as number }), ValidationError, {
        field: 'options.after',
        message: ['`options.after`', 'job id'],
      });
    }
    for (const limit of [0, -1, 2.5, '10']) {
      await expectFailure(ctx.queue.queryJobsPage({}, { limit: limit as number }), ValidationError, {
        field: 'options.limit',
        message: ['`options.limit`'],
      });
    }
    await expectFailure(ctx.queue.queryJobsPage({}, { limit: 5, offset: 10 } as { limit: number }), ValidationError, {
      field: 'options.offset',
      message: ['`options.offset`', 'nextAfter'],
    });
    await expectFailure(ctx.queue.queryJobsPage({}, 5 as never), ValidationError, { field: 'options' });
    await expectFailure(ctx.queue.queryJobsPage({ status: 'lost' as JobStatus }, { limit: 5 }), ValidationError, {
      field: 'filter.status',
    });
  });
});
