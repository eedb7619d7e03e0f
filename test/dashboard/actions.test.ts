/**
 * The dashboard's routes that act on jobs (api-actions.ts): the count behind a bulk action's
 * confirmation, retrying every failed and cancelling every pending job of the list's filter,
 * deleting a finished job and editing a pending one; their bad input, wrong status, cross-origin
 * and read-only refusals, on both backends.
 */
import { expect, it } from 'vitest';
import { COUNT_LIMIT } from '../../src/dashboard/api-actions.js';
import type { JobQueue } from '../../src/queue.js';
import { addFailedJobs, claimJob } from '../conformance/job-states.js';
import { forEachBackend } from '../helpers/backends.js';
import { dashboardClient, HOST, read, seedJobsInEveryStatus } from './support.js';

const CROSS_ORIGIN = { Host: HOST, Origin: 'http://evil.test', 'Sec-Fetch-Site': 'cross-site' };

forEachBackend('dashboard GET /api/jobs/count', (ctx) => {
  it('counts the jobs of the list filter', async () => {
    await addFailedJobs(ctx.queue, 'email', 3);
    await addFailedJobs(ctx.queue, 'sms', 2);
    await ctx.queue.addJob({ jobType: 'email', payload: {} });
    const client = dashboardClient(ctx.queue);
    expect(await read(await client.get('/api/jobs/count?status=failed&jobType=email'))).toEqual({
      status: 200,
      body: { count: 3, capped: false },
    });
    expect((await read(await client.get('/api/jobs/count?status=failed'))).body).toEqual({ count: 5, capped: false });
    expect((await read(await client.get('/api/jobs/count'))).body).toEqual({ count: 6, capped: false });
    expect((await read(await client.get('/api/jobs/count?status=cancelled'))).body).toEqual({
      count: 0,
      capped: false,
    });
  });

  it(`stops at ${COUNT_LIMIT} and says there are more`, async () => {
    await ctx.queue.addJobs(Array.from({ length: COUNT_LIMIT + 5 }, () => ({ jobType: 'bulk', payload: {} })));
    const client = dashboardClient(ctx.queue);
    expect((await read(await client.get('/api/jobs/count?status=pending'))).body).toEqual({
      count: COUNT_LIMIT,
      capped: true,
    });
    expect((await read(await client.get('/api/jobs/count?jobType=bulk&status=pending'))).body).toEqual({
      count: COUNT_LIMIT,
      capped: true,
    });
  });

  it('answers 400 naming the parameter for a bad filter', async () => {
    const { status, body } = await read(await dashboardClient(ctx.queue).get('/api/jobs/count?status=nope'));
    expect(status).toBe(400);
    expect(body.error).toContain('`status`');
  });
});

forEachBackend('dashboard POST /api/jobs/retry-failed and /cancel-pending', (ctx) => {
  it('retries every failed job of the filter and answers their number', async () => {
    const emails = await addFailedJobs(ctx.queue, 'email', 3);
    const [sms] = await addFailedJobs(ctx.queue, 'sms', 1);
    const client = dashboardClient(ctx.queue);
    expect(await read(await client.post('/api/jobs/retry-failed?status=failed&jobType=email'))).toEqual({
      status: 200,
      body: { count: 3 },
    });
    for (const id of emails) expect(await ctx.queue.getJob(id)).toMatchObject({ status: 'pending', attempts: 0 });
    expect(await ctx.queue.getJob(sms!)).toMatchObject({ status: 'failed' });
    expect((await read(await client.post('/api/jobs/retry-failed'))).body).toEqual({ count: 1 });
    expect(await ctx.queue.getJob(sms!)).toMatchObject({ status: 'pending' });
  });

  it('cancels every pending job of the filter and answers their number', async () => {
    const [a, b, other] = await ctx.queue.addJobs([
      { jobType: 'email', payload: {} },
      { jobType: 'email', payload: {} },
      { jobType: 'sms', payload: {} },
    ]);
    const client = dashboardClient(ctx.queue);
    expect(await read(await client.post('/api/jobs/cancel-pending?jobType=email&status=pending'))).toEqual({
      status: 200,
      body: { count: 2 },
    });
    expect(await ctx.queue.getJob(a!)).toMatchObject({ status: 'cancelled' });
    expect(await ctx.queue.getJob(b!)).toMatchObject({ status: 'cancelled' });
    expect(await ctx.queue.getJob(other!)).toMatchObject({ status: 'pending' });
  });

  it('acts on the jobs of a job type prefix and a tag, as the list filters them', async () => {
    const [sendA, sendB, bounce, sms] = await ctx.queue.addJobs([
      { jobType: 'email.send', payload: {}, tags: ['tenant:7'] },
      { jobType: 'email.send', payload: {}, tags: ['tenant:8'] },
      { jobType: 'email.bounce', payload: {}, tags: ['tenant:7'] },
      { jobType: 'sms', payload: {}, tags: ['tenant:7'] },
    ]);
    const client = dashboardClient(ctx.queue);
    const filter = 'jobTypePrefix=email.&tag=tenant:7';
    expect((await read(await client.get(`/api/jobs/count?status=pending&${filter}`))).body).toEqual({
      count: 2,
      capped: false,
    });
    expect((await read(await client.post(`/api/jobs/cancel-pending?${filter}`))).body).toEqual({ count: 2 });
    expect(await ctx.queue.getJob(sendA!)).toMatchObject({ status: 'cancelled' });
    expect(await ctx.queue.getJob(bounce!)).toMatchObject({ status: 'cancelled' });
    expect(await ctx.queue.getJob(sendB!)).toMatchObject({ status: 'pending' });
    expect(await ctx.queue.getJob(sms!)).toMatchObject({ status: 'pending' });
  });

  it('answers 400 naming `q` for a payload search, which cannot select every job, and changes nothing', async () => {
    const [failed] = await addFailedJobs(ctx.queue, 'email', 1);
    const pending = await ctx.queue.addJob({ jobType: 'email', payload: { to: 'a@b.c' } });
    const client = dashboardClient(ctx.queue);
    for (const answer of [
      await client.get('/api/jobs/count?q=a%40b'),
      await client.post('/api/jobs/retry-failed?q=a%40b'),
      await client.post('/api/jobs/cancel-pending?q=a%40b'),
    ]) {
      const { status, body } = await read(answer);
      expect(status).toBe(400);
      expect(body.error).toMatch(/^Expected no `q` on a count or bulk action: .*got "a@b" \(string\)$/);
    }
    expect(await ctx.queue.getJob(failed!)).toMatchObject({ status: 'failed' });
    expect(await ctx.queue.getJob(pending)).toMatchObject({ status: 'pending' });
  });

  it('answers 400 naming `status` when the filter names another status, and changes nothing', async () => {
    const [failed] = await addFailedJobs(ctx.queue, 'email', 1);
    const pending = await ctx.queue.addJob({ jobType: 'email', payload: {} });
    const client = dashboardClient(ctx.queue);
    const retry = await read(await client.post('/api/jobs/retry-failed?status=pending'));
    expect(retry.status).toBe(400);
    expect(retry.body.error).toBe(
      'Expected `status` to be absent or "failed" (string) for this action, got "pending" (string)',
    );
    const cancel = await read(await client.post('/api/jobs/cancel-pending?status=failed'));
    expect(cancel.status).toBe(400);
    expect(cancel.body.error).toContain('`status`');
    expect(await ctx.queue.getJob(failed!)).toMatchObject({ status: 'failed' });
    expect(await ctx.queue.getJob(pending)).toMatchObject({ status: 'pending' });
  });

  it('answers 405 to a GET', async () => {
    expect((await dashboardClient(ctx.queue).get('/api/jobs/retry-failed')).status).toBe(405);
  });
});

forEachBackend('dashboard POST /api/jobs/:id/delete', (ctx) => {
  it('deletes a completed, failed or cancelled job with its events', async () => {
    const seeded = await seedJobsInEveryStatus(ctx.queue);
    const client = dashboardClient(ctx.queue);
    for (const id of [seeded.completed, seeded.failed, seeded.cancelled]) {
      expect(await read(await client.post(`/api/jobs/${id}/delete`))).toEqual({ status: 200, body: { ok: true } });
      expect(await ctx.queue.getJob(id)).toBeNull();
      expect(await ctx.queue.getJobEvents(id)).toEqual([]);
      expect((await client.get(`/api/jobs/${id}`)).status).toBe(404);
    }
  });

  it('answers 409 naming the status of a pending, processing or waiting job, and keeps it', async () => {
    const seeded = await seedJobsInEveryStatus(ctx.queue);
    const client = dashboardClient(ctx.queue);
    for (const status of ['pending', 'processing', 'waiting'] as const) {
      const id = seeded[status];
      const { status: code, body } = await read(await client.post(`/api/jobs/${id}/delete`));
      expect(code, status).toBe(409);
      expect(body.ok).toBe(false);
      expect(body.error).toContain(`it is ${status}`);
      expect(await ctx.queue.getJob(id)).toMatchObject({ status });
    }
  });

  it('answers 404 for an unknown job and 400 for a bad id', async () => {
    const client = dashboardClient(ctx.queue);
    expect(await read(await client.post('/api/jobs/987654/delete'))).toEqual({
      status: 404,
      body: { error: 'Job 987654 not found' },
    });
    expect((await client.post('/api/jobs/abc/delete')).status).toBe(400);
  });
});

forEachBackend('dashboard POST /api/jobs/:id/edit', (ctx) => {
  it("edits a pending job's payload, priority and run time", async () => {
    const id = await ctx.queue.addJob({ jobType: 'email', payload: { to: 'a' }, priority: 1 });
    const client = dashboardClient(ctx.queue);
    const runAt = '2030-06-01T12:00:00.000Z';
    const answer = await read(
      await client.post(`/api/jobs/${id}/edit`, undefined, {
        payload: { to: 'b', n: [1, 2] },
        priority: 7,
        runAt,
      }),
    );
    expect(answer).toEqual({ status: 200, body: { ok: true } });
    expect(await ctx.queue.getJob(id)).toMatchObject({
      payload: { to: 'b', n: [1, 2] },
      priority: 7,
      runAt: new Date(runAt),
    });
    expect((await ctx.queue.getJobEvents(id)).at(-1)).toMatchObject({ eventType: 'edited' });
  });

  it('changes only the fields sent; runAt null makes the job due now', async () => {
    const id = await ctx.queue.addJob({
      jobType: 'email',
      payload: { keep: true },
      priority: 3,
      runAt: new Date('2031-01-01T00:00:00Z'),
    });
    const client = dashboardClient(ctx.queue);
    expect((await client.post(`/api/jobs/${id}/edit`, undefined, { runAt: null })).status).toBe(200);
    const job = await ctx.queue.getJob(id);
    expect(job).toMatchObject({ payload: { keep: true }, priority: 3 });
    expect(job!.runAt.getTime()).toBeLessThanOrEqual(Date.now());
  });

  it.each([
    ['a priority that is not an integer', { priority: 1.5 }, '`priority`'],
    ['a priority out of range', { priority: 2 ** 31 }, '`priority`'],
    ['a run time without an offset', { runAt: '2030-06-01T12:00' }, '`runAt`'],
    ['a run time that is no date', { runAt: 'tomorrow' }, '`runAt`'],
    ['an unknown field', { jobType: 'other' }, 'only payload, priority, runAt'],
    ['no field', {}, '`body`'],
  ])('answers 400 naming the field for %s, and changes nothing', async (_, body, fragment) => {
    const id = await ctx.queue.addJob({ jobType: 'email', payload: { to: 'a' } });
    const before = await ctx.queue.getJob(id);
    const answer = await read(await dashboardClient(ctx.queue).post(`/api/jobs/${id}/edit`, undefined, body));
    expect(answer.status).toBe(400);
    expect(answer.body.error).toContain(fragment);
    expect(await ctx.queue.getJob(id)).toEqual(before);
  });

  it('answers 400 naming `body` for a body that is not JSON', async () => {
    const id = await ctx.queue.addJob({ jobType: 'email', payload: {} });
    const { dashboard } = dashboardClient(ctx.queue);
    const response = await dashboard.POST(
      new Request(`http://${HOST}/admin/jobs/api/jobs/${id}/edit`, {
        method: 'POST',
        headers: { Host: HOST, 'Sec-Fetch-Site': 'same-origin', 'Content-Type': 'application/json' },
        body: '{"payload":',
      }),
    );
    const { status, body } = await read(response);
    expect(status).toBe(400);
    expect(body.error).toContain('`body`');
  });

  it('answers 409 naming the status of a job that is not pending, and 404 for an unknown one', async () => {
    const seeded = await seedJobsInEveryStatus(ctx.queue);
    const client = dashboardClient(ctx.queue);
    for (const status of ['processing', 'completed', 'failed', 'cancelled', 'waiting'] as const) {
      const before = await ctx.queue.getJob(seeded[status]);
      const { status: code, body } = await read(
        await client.post(`/api/jobs/${seeded[status]}/edit`, undefined, { priority: 9 }),
      );
      expect(code, status).toBe(409);
      expect(body).toEqual({ ok: false, error: `Job ${seeded[status]} is ${status}: only pending jobs can be edited` });
      expect(await ctx.queue.getJob(seeded[status])).toEqual(before);
    }
    expect((await client.post('/api/jobs/987654/edit', undefined, { priority: 1 })).status).toBe(404);
  });
});

/** The queue, with `around` run on the job just before (or after) each editJob it makes. */
function claimingAround(queue: JobQueue, when: 'before' | 'after'): JobQueue {
  return new Proxy(queue, {
    get(target, prop) {
      if (prop === 'editJob') {
        return async (...args: Parameters<JobQueue['editJob']>) => {
          if (when === 'before') await claimJob(target, args[0]);
          await target.editJob(...args);
          if (when === 'after') await claimJob(target, args[0]);
        };
      }
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

forEachBackend('dashboard POST /api/jobs/:id/edit while a processor claims the job', (ctx) => {
  it('answers 409 when the job was claimed before the edit, which changed nothing', async () => {
    const id = await ctx.queue.addJob({ jobType: 'raced', payload: {}, priority: 1 });
    const client = dashboardClient(claimingAround(ctx.queue, 'before'));
    expect(await read(await client.post(`/api/jobs/${id}/edit`, undefined, { priority: 9 }))).toEqual({
      status: 409,
      body: { ok: false, error: `Job ${id} is processing: only pending jobs can be edited` },
    });
    expect(await ctx.queue.getJob(id)).toMatchObject({ status: 'processing', priority: 1 });
  });

  it('answers 200 when the job was claimed just after the edit took effect', async () => {
    const id = await ctx.queue.addJob({ jobType: 'raced', payload: {}, priority: 1 });
    const client = dashboardClient(claimingAround(ctx.queue, 'after'));
    expect(await read(await client.post(`/api/jobs/${id}/edit`, undefined, { priority: 9 }))).toEqual({
      status: 200,
      body: { ok: true },
    });
    expect(await ctx.queue.getJob(id)).toMatchObject({ status: 'processing', priority: 9 });
  });
});

forEachBackend('dashboard action routes refuse', (ctx) => {
  /** Every new POST route, with what it would change. */
  async function routes() {
    const seeded = await seedJobsInEveryStatus(ctx.queue);
    return {
      seeded,
      posts: [
        ['/api/jobs/retry-failed', undefined],
        ['/api/jobs/cancel-pending', undefined],
        [`/api/jobs/${seeded.completed}/delete`, undefined],
        [`/api/jobs/${seeded.pending}/edit`, { priority: 5 }],
      ] as const,
    };
  }

  it('every cross-origin POST with 403, changing nothing', async () => {
    const { posts } = await routes();
    const before = await ctx.queue.getAllJobs();
    const client = dashboardClient(ctx.queue);
    for (const [path, body] of posts) {
      const { status, body: answer } = await read(await client.post(path, CROSS_ORIGIN, body));
      expect(status, path).toBe(403);
      expect(answer.error, path).toContain('Cross-origin request refused');
    }
    expect(await ctx.queue.getAllJobs()).toEqual(before);
  });

  it('every POST of a read-only dashboard with 403, changing nothing; the count still answers', async () => {
    const { posts } = await routes();
    const before = await ctx.queue.getAllJobs();
    const client = dashboardClient(ctx.queue, { readOnly: true });
    for (const [path, body] of posts) {
      const { status, body: answer } = await read(await client.post(path, undefined, body));
      expect(status, path).toBe(403);
      expect(answer.error, path).toBe('This dashboard is read-only (readOnly: true): it takes no action');
    }
    expect(await ctx.queue.getAllJobs()).toEqual(before);
    expect((await read(await client.get('/api/jobs/count?status=failed'))).body).toEqual({ count: 1, capped: false });
  });
});
