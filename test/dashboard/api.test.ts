/**
 * The dashboard's JSON routes (SPEC §4.11, DETAILS "Dashboard HTTP API"): success and error
 * codes and bodies of every route, on both backends.
 */
import { expect, it } from 'vitest';
import { forEachBackend } from '../helpers/backends.js';
import { dashboardClient, queueWithClosedDriver, read, seedJobsInEveryStatus } from './support.js';

const SUMMARY_FIELDS = [
  'id',
  'jobType',
  'status',
  'priority',
  'attempts',
  'maxAttempts',
  'progress',
  'tags',
  'pendingReason',
  'failureReason',
  'lastError',
  'runAt',
  'holdReason',
  'createdAt',
  'updatedAt',
  'startedAt',
  'completedAt',
  'nextAttemptAt',
  'waitUntil',
];

forEachBackend('dashboard GET /api/jobs (§4.11)', (ctx) => {
  it('lists jobs newest first with hasMore, dates as ISO strings', async () => {
    const ids = await ctx.queue.addJobs([1, 2, 3].map((n) => ({ jobType: 'email', payload: { n } })));
    const client = dashboardClient(ctx.queue);

    const { status, body } = await read(await client.get('/api/jobs'));
    expect(status).toBe(200);
    expect(body.hasMore).toBe(false);
    expect(body.jobs.map((j: { id: number }) => j.id)).toEqual([...ids].reverse());
    const stored = await ctx.queue.getJob(ids[0]!);
    const listed = body.jobs.find((j: { id: number }) => j.id === ids[0]);
    expect(listed).toMatchObject({ jobType: 'email', status: 'pending' });
    expect(listed.createdAt).toBe(stored!.createdAt.toISOString());
    expect(listed.runAt).toBe(stored!.runAt.toISOString());
  });

  it('lists summaries: no payload, output, step data or error history, which GET /api/jobs/:id has', async () => {
    const big = 'x'.repeat(1_000_000);
    const longError = `smtp down: ${'e'.repeat(1_000)}`;
    const [done, failed] = await ctx.queue.addJobs([
      { jobType: 'done', payload: { big }, tags: ['t1'], priority: 3 },
      { jobType: 'fails', payload: { big }, maxAttempts: 1 },
    ]);
    const processed = await ctx.queue
      .createProcessor({
        done: async () => ({ result: big }),
        // Step data stays on a job that did not complete.
        fails: async (_payload, _signal, job) => {
          await job.run('step', () => big);
          throw new Error(longError);
        },
      })
      .start();
    expect(processed).toBe(2);
    const client = dashboardClient(ctx.queue);

    const list = await client.get('/api/jobs');
    const text = await list.text();
    expect(text.length).toBeLessThan(5_000); // 2 MB of job data stayed out
    const jobs = JSON.parse(text).jobs as Record<string, unknown>[];
    expect(jobs.map((j) => j.id)).toEqual([failed, done]);
    for (const job of jobs) expect(Object.keys(job).sort()).toEqual([...SUMMARY_FIELDS].sort());
    const stored = (await ctx.queue.getJob(done!))!;
    expect(jobs[1]).toEqual({
      id: done,
      jobType: 'done',
      status: 'completed',
      priority: 3,
      attempts: 1,
      maxAttempts: stored.maxAttempts,
      progress: stored.progress,
      tags: ['t1'],
      pendingReason: null,
      failureReason: null,
      lastError: null,
      runAt: stored.runAt.toISOString(),
      holdReason: null,
      createdAt: stored.createdAt.toISOString(),
      updatedAt: stored.updatedAt.toISOString(),
      startedAt: stored.startedAt!.toISOString(),
      completedAt: stored.completedAt!.toISOString(),
      nextAttemptAt: null,
      waitUntil: null,
    });
    // The latest error, cut to 200 characters; the detail has it whole.
    expect(jobs[0]).toMatchObject({
      status: 'failed',
      failureReason: 'handler_error',
      lastError: `${longError.slice(0, 199)}…`,
    });

    const detail = (await read(await client.get(`/api/jobs/${done}`))).body.job;
    expect(detail).toMatchObject({ payload: { big }, output: { result: big } });
    const failedDetail = (await read(await client.get(`/api/jobs/${failed}`))).body.job;
    expect(failedDetail).toMatchObject({ payload: { big }, stepData: { step: big } });
    expect(failedDetail.errorHistory.map((e: { message: string }) => e.message)).toEqual([longError]);
  });

  it('pages with limit and offset; hasMore is true exactly when a further job exists', async () => {
    const ids = await ctx.queue.addJobs(Array.from({ length: 5 }, (_, n) => ({ jobType: 'email', payload: { n } })));
    const newestFirst = [...ids].reverse();
    const client = dashboardClient(ctx.queue);
    const page = async (query: string) => (await read(await client.get(`/api/jobs?${query}`))).body;

    expect(await page('limit=2')).toEqual({ jobs: expect.any(Array), hasMore: true, nextAfter: newestFirst[1] });
    expect((await page('limit=2')).jobs.map((j: { id: number }) => j.id)).toEqual(newestFirst.slice(0, 2));
    const second = await page('limit=2&offset=2');
    expect(second.jobs.map((j: { id: number }) => j.id)).toEqual(newestFirst.slice(2, 4));
    expect(second.hasMore).toBe(true);
    const last = await page('limit=2&offset=4');
    expect(last.jobs.map((j: { id: number }) => j.id)).toEqual(newestFirst.slice(4));
    expect(last.hasMore).toBe(false);
    expect(await page('limit=5')).toMatchObject({ hasMore: false });
  });

  it('pages with after: each page goes on from the nextAfter of the one before, the last has none', async () => {
    const ids = await ctx.queue.addJobs(Array.from({ length: 5 }, (_, n) => ({ jobType: 'email', payload: { n } })));
    const newestFirst = [...ids].reverse();
    const client = dashboardClient(ctx.queue);
    const page = async (query: string) => (await read(await client.get(`/api/jobs?${query}`))).body;
    const idsOf = (body: { jobs: { id: number }[] }) => body.jobs.map((j) => j.id);

    const first = await page('limit=2');
    expect(idsOf(first)).toEqual(newestFirst.slice(0, 2));
    // A job added in front does not shift the pages after the first.
    await ctx.queue.addJob({ jobType: 'email', payload: { n: 5 } });
    const second = await page(`limit=2&after=${first.nextAfter}`);
    expect(second).toMatchObject({ hasMore: true, nextAfter: newestFirst[3] });
    expect(idsOf(second)).toEqual(newestFirst.slice(2, 4));
    const last = await page(`limit=2&after=${second.nextAfter}`);
    expect(last).toMatchObject({ hasMore: false, nextAfter: null });
    expect(idsOf(last)).toEqual(newestFirst.slice(4));
    // With a filter, and `offset=0` beside it is no offset.
    expect(idsOf(await page(`jobType=email&limit=1&offset=0&after=${newestFirst[1]}`))).toEqual([newestFirst[2]]);
  });

  it('answers 400 naming `offset` for an offset with after', async () => {
    const { status, body } = await read(await dashboardClient(ctx.queue).get('/api/jobs?after=5&offset=2'));
    expect(status).toBe(400);
    expect(body.error).toContain('`offset`');
    expect(body.error).toContain('`after`');
  });

  it('returns 25 jobs by default', async () => {
    await ctx.queue.addJobs(Array.from({ length: 26 }, (_, n) => ({ jobType: 'email', payload: { n } })));
    const { body } = await read(await dashboardClient(ctx.queue).get('/api/jobs'));
    expect(body.jobs).toHaveLength(25);
    expect(body.hasMore).toBe(true);
  });

  it('filters by status, by job type, and by both together', async () => {
    const seeded = await seedJobsInEveryStatus(ctx.queue);
    const other = await ctx.queue.addJob({ jobType: 'failed-job', payload: {} }); // pending, same type as the failed one
    const client = dashboardClient(ctx.queue);
    const idsOf = async (query: string) =>
      (await read(await client.get(`/api/jobs?${query}`))).body.jobs.map((j: { id: number }) => j.id);

    for (const status of ['pending', 'processing', 'completed', 'failed', 'cancelled', 'waiting'] as const) {
      const expected = status === 'pending' ? [other, seeded.pending] : [seeded[status]];
      expect(await idsOf(`status=${status}`), status).toEqual(expected);
    }
    expect(await idsOf('jobType=failed-job')).toEqual([other, seeded.failed]);
    expect(await idsOf('status=failed&jobType=failed-job')).toEqual([seeded.failed]);
    expect(await idsOf('status=pending&jobType=failed-job')).toEqual([other]);
    expect(await idsOf('status=completed&jobType=failed-job')).toEqual([]);
    expect(await idsOf('status=&jobType=')).toHaveLength(7);
  });

  it.each([
    ['status=done', '`status`'],
    ['limit=0', '`limit`'],
    ['limit=201', '`limit`'],
    ['limit=abc', '`limit`'],
    ['limit=1.5', '`limit`'],
    ['offset=-1', '`offset`'],
    ['offset=x', '`offset`'],
    ['after=0', '`after`'],
    ['after=-4', '`after`'],
    ['after=x', '`after`'],
  ])('answers 400 { error } naming the parameter for %s', async (query, field) => {
    const { status, body } = await read(await dashboardClient(ctx.queue).get(`/api/jobs?${query}`));
    expect(status).toBe(400);
    expect(body.error).toContain(field);
    expect(body.error).toContain(JSON.stringify(query.split('=')[1]));
  });

  it('accepts the maximum limit of 200', async () => {
    const { status } = await read(await dashboardClient(ctx.queue).get('/api/jobs?limit=200'));
    expect(status).toBe(200);
  });

  it('answers 500 { error } when the store fails', async () => {
    const broken = await queueWithClosedDriver(ctx);
    const { status, body } = await read(await dashboardClient(broken).get('/api/jobs'));
    expect(status).toBe(500);
    expect(body.error).toEqual(expect.any(String));
    expect(body.error.length).toBeGreaterThan(0);
  });
});

forEachBackend('dashboard GET /api/jobs/:id and /events (§4.11)', (ctx) => {
  it('returns { job } with every record field, dates as ISO strings', async () => {
    const id = await ctx.queue.addJob({
      jobType: 'email',
      payload: { to: 'a@example.com' },
      tags: ['t1'],
      priority: 3,
    });
    const stored = (await ctx.queue.getJob(id))!;
    const { status, body } = await read(await dashboardClient(ctx.queue).get(`/api/jobs/${id}`));
    expect(status).toBe(200);
    expect(body.job).toEqual(JSON.parse(JSON.stringify(stored)));
    expect(body.job).toMatchObject({ id, payload: { to: 'a@example.com' }, tags: ['t1'], priority: 3 });
    expect(body.job.updated_at).toBe(stored.updated_at.toISOString());
  });

  it('returns { events } oldest first with ISO dates', async () => {
    const id = await ctx.queue.addJob({ jobType: 'email', payload: {} });
    await ctx.queue.cancelJob(id);
    const events = await ctx.queue.getJobEvents(id);
    const { status, body } = await read(await dashboardClient(ctx.queue).get(`/api/jobs/${id}/events`));
    expect(status).toBe(200);
    expect(body.events.map((e: { eventType: string }) => e.eventType)).toEqual(['added', 'cancelled']);
    expect(body.events[0].createdAt).toBe(events[0]!.createdAt.toISOString());
    expect(body.events[0].jobId).toBe(id);
  });

  it.each(['/api/jobs/999999', '/api/jobs/999999/events'])('answers 404 for an unknown job: %s', async (path) => {
    const { status, body } = await read(await dashboardClient(ctx.queue).get(path));
    expect(status).toBe(404);
    expect(body).toEqual({ error: 'Job 999999 not found' });
  });

  it.each(['abc', '0', '-1', '1.5', '1e3', '99999999999999999999'])('answers 400 for the id %s', async (raw) => {
    for (const path of [`/api/jobs/${raw}`, `/api/jobs/${raw}/events`]) {
      const { status, body } = await read(await dashboardClient(ctx.queue).get(path));
      expect(status, path).toBe(400);
      expect(body.error).toContain('`id`');
    }
  });
});

forEachBackend('dashboard POST /api/jobs/:id/cancel and /retry (§4.11)', (ctx) => {
  it.each(['pending', 'waiting'] as const)('cancels a %s job: 200 { ok: true }', async (from) => {
    const seeded = await seedJobsInEveryStatus(ctx.queue);
    const { status, body } = await read(await dashboardClient(ctx.queue).post(`/api/jobs/${seeded[from]}/cancel`));
    expect({ status, body }).toEqual({ status: 200, body: { ok: true } });
    expect(await ctx.queue.getJob(seeded[from])).toMatchObject({ status: 'cancelled' });
  });

  it.each(['processing', 'completed', 'failed', 'cancelled'] as const)(
    'refuses to cancel a %s job: 409 { ok: false, error } and the job is unchanged',
    async (from) => {
      const seeded = await seedJobsInEveryStatus(ctx.queue);
      const before = await ctx.queue.getJob(seeded[from]);
      const { status, body } = await read(await dashboardClient(ctx.queue).post(`/api/jobs/${seeded[from]}/cancel`));
      expect(status).toBe(409);
      expect(body).toEqual({
        ok: false,
        error: `Job ${seeded[from]} is ${from}: only pending or waiting jobs can be cancelled`,
      });
      expect(await ctx.queue.getJob(seeded[from])).toEqual(before);
    },
  );

  it.each(['failed', 'cancelled'] as const)('retries a %s job: 200 { ok: true }', async (from) => {
    const seeded = await seedJobsInEveryStatus(ctx.queue);
    const { status, body } = await read(await dashboardClient(ctx.queue).post(`/api/jobs/${seeded[from]}/retry`));
    expect({ status, body }).toEqual({ status: 200, body: { ok: true } });
    expect(await ctx.queue.getJob(seeded[from])).toMatchObject({ status: 'pending', attempts: 0 });
  });

  it.each(['pending', 'processing', 'completed', 'waiting'] as const)(
    'refuses to retry a %s job: 409 { ok: false, error } and the job is unchanged',
    async (from) => {
      const seeded = await seedJobsInEveryStatus(ctx.queue);
      const before = await ctx.queue.getJob(seeded[from]);
      const { status, body } = await read(await dashboardClient(ctx.queue).post(`/api/jobs/${seeded[from]}/retry`));
      expect(status).toBe(409);
      expect(body).toEqual({
        ok: false,
        error: `Job ${seeded[from]} is ${from}: only failed or cancelled jobs can be retried`,
      });
      expect(await ctx.queue.getJob(seeded[from])).toEqual(before);
    },
  );

  it.each(['cancel', 'retry'])('%s answers 404 for an unknown job and 400 for a bad id', async (action) => {
    const client = dashboardClient(ctx.queue);
    expect(await read(await client.post(`/api/jobs/424242/${action}`))).toEqual({
      status: 404,
      body: { error: 'Job 424242 not found' },
    });
    const bad = await read(await client.post(`/api/jobs/x1/${action}`));
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain('`id`');
  });
});

forEachBackend('dashboard POST /api/process (§4.11)', (ctx) => {
  it('runs one batch of 10 by default with the configured handlers: 200 { processed }', async () => {
    const seen: number[] = [];
    const ids = await ctx.queue.addJobs(Array.from({ length: 12 }, (_, n) => ({ jobType: 'count', payload: { n } })));
    const client = dashboardClient(ctx.queue, {
      jobHandlers: { count: async (payload: { n: number }) => void seen.push(payload.n) },
    });

    expect(await read(await client.post('/api/process'))).toEqual({ status: 200, body: { processed: 10 } });
    expect(seen).toHaveLength(10);
    const jobs = await Promise.all(ids.map((id) => ctx.queue.getJob(id)));
    expect(jobs.filter((j) => j?.status === 'completed')).toHaveLength(10);

    expect(await read(await client.post('/api/process'))).toEqual({ status: 200, body: { processed: 2 } });
    expect(await read(await client.post('/api/process'))).toEqual({ status: 200, body: { processed: 0 } });
  });

  it('uses processorOptions (batchSize, jobType)', async () => {
    await ctx.queue.addJobs([
      ...Array.from({ length: 3 }, () => ({ jobType: 'a', payload: {} })),
      { jobType: 'b', payload: {} },
    ]);
    const client = dashboardClient(ctx.queue, {
      jobHandlers: { a: async () => undefined, b: async () => undefined },
      processorOptions: { batchSize: 2, jobType: 'a' },
    });
    expect((await read(await client.post('/api/process'))).body).toEqual({ processed: 2 });
    expect((await read(await client.post('/api/process'))).body).toEqual({ processed: 1 });
    expect((await read(await client.post('/api/process'))).body).toEqual({ processed: 0 });
    expect(await ctx.queue.getJobsByStatus('pending')).toMatchObject([{ jobType: 'b' }]);
  });

  it('answers 500 { error } when the batch cannot be claimed', async () => {
    const broken = await queueWithClosedDriver(ctx);
    // A handler, so the processor has a type to claim (one without handlers claims nothing).
    const client = dashboardClient(broken, { jobHandlers: { work: async () => undefined } });
    const { status, body } = await read(await client.post('/api/process'));
    expect(status).toBe(500);
    expect(body).toEqual({ error: expect.any(String) });
  });
});

forEachBackend('dashboard routing (§4.11)', (ctx) => {
  it.each([
    ['GET', '/api'],
    ['GET', '/api/nothing'],
    ['GET', '/api/jobs/1/other'],
    ['POST', '/api/jobs/1/archive'],
  ])('answers 404 { error: "Not found" } for %s %s', async (method, path) => {
    const client = dashboardClient(ctx.queue);
    const response = method === 'GET' ? await client.get(path) : await client.post(path);
    expect(await read(response)).toEqual({ status: 404, body: { error: 'Not found' } });
  });

  it('answers 404 outside basePath, including a path that only starts with the same letters', async () => {
    const { dashboard } = dashboardClient(ctx.queue);
    for (const url of [
      'http://dashboard.test/',
      'http://dashboard.test/admin',
      'http://dashboard.test/admin/jobsx/api/jobs',
    ]) {
      expect(await read(await dashboard.GET(new Request(url))), url).toEqual({
        status: 404,
        body: { error: 'Not found' },
      });
    }
  });

  it('answers 405 with Allow for a route of the other method', async () => {
    const client = dashboardClient(ctx.queue);
    const get = await client.get('/api/process');
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    const post = await client.post('/api/jobs/1');
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET');
  });

  it('serves the API under basePath "/" and tolerates a trailing slash', async () => {
    const id = await ctx.queue.addJob({ jobType: 'email', payload: {} });
    const client = dashboardClient(ctx.queue, { basePath: '/' });
    expect((await read(await client.get(`/api/jobs/${id}/`))).body.job.id).toBe(id);
    expect((await client.get('/')).headers.get('content-type')).toContain('text/html');
  });
});
