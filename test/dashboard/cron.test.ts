/**
 * The cron page's JSON routes (src/dashboard/api-cron.ts) on both backends: the list with next
 * run and last job, pause, resume, trigger now and edit, bad input, unknown ids, and the
 * read-only and cross-origin refusals every POST route shares.
 */
import { expect, it } from 'vitest';
import type { JobQueue } from '../../src/queue.js';
import type { CronJobOptions } from '../../src/types.js';
import { ManualClock, forEachBackend } from '../helpers/backends.js';
import { completeJob } from '../conformance/job-states.js';
import { HOST, dashboardClient, read } from './support.js';

const T0 = new Date('2030-01-01T00:00:00Z');
const at = (iso: string) => new Date(iso);

const SUMMARY_FIELDS = [
  'id',
  'scheduleName',
  'cronExpression',
  'timezone',
  'jobType',
  'status',
  'allowOverlap',
  'nextRunAt',
  'lastEnqueuedAt',
  'lastJob',
].sort();

function schedule(overrides: Partial<CronJobOptions> = {}): CronJobOptions {
  return {
    scheduleName: 'hourly',
    cronExpression: '0 * * * *',
    jobType: 'report',
    payload: { big: 'x' },
    ...overrides,
  };
}

forEachBackend('dashboard cron routes', (ctx) => {
  function setup(): { clock: ManualClock; queue: JobQueue; client: ReturnType<typeof dashboardClient> } {
    const clock = new ManualClock(T0);
    const queue = ctx.makeQueue({ clock });
    return { clock, queue, client: dashboardClient(queue) };
  }

  it('GET /api/cron lists schedules in id order: expression, time zone, next run (null while paused), last job and its status', async () => {
    const { clock, queue, client } = setup();
    const hourly = await queue.addCronJob(schedule());
    const berlin = await queue.addCronJob(
      schedule({ scheduleName: 'berlin', cronExpression: '30 9 * * 1-5', timezone: 'Europe/Berlin', jobType: 'mail' }),
    );
    const paused = await queue.addCronJob(schedule({ scheduleName: 'paused', jobType: 'sync' }));
    await queue.pauseCronJob(paused);
    clock.set(at('2030-01-01T01:00:00Z'));
    expect(await queue.enqueueDueCronJobs()).toBe(1);
    const lastJobId = (await queue.getCronJob(hourly))!.lastJobId!;
    await completeJob(queue, lastJobId);

    const { status, body } = await read(await client.get('/api/cron'));

    expect(status).toBe(200);
    expect(body.hasMore).toBe(false);
    for (const s of body.schedules) expect(Object.keys(s).sort()).toEqual(SUMMARY_FIELDS);
    expect(body.schedules).toEqual([
      {
        id: hourly,
        scheduleName: 'hourly',
        cronExpression: '0 * * * *',
        timezone: 'UTC',
        jobType: 'report',
        status: 'active',
        allowOverlap: false,
        nextRunAt: '2030-01-01T02:00:00.000Z',
        lastEnqueuedAt: '2030-01-01T01:00:00.000Z',
        lastJob: { id: lastJobId, status: 'completed' },
      },
      {
        id: berlin,
        scheduleName: 'berlin',
        cronExpression: '30 9 * * 1-5',
        timezone: 'Europe/Berlin',
        jobType: 'mail',
        status: 'active',
        allowOverlap: false,
        // 09:30 in Berlin (UTC+1 in winter) on Tuesday 2030-01-01.
        nextRunAt: '2030-01-01T08:30:00.000Z',
        lastEnqueuedAt: null,
        lastJob: null,
      },
      {
        id: paused,
        scheduleName: 'paused',
        cronExpression: '0 * * * *',
        timezone: 'UTC',
        jobType: 'sync',
        status: 'paused',
        allowOverlap: false,
        nextRunAt: null,
        lastEnqueuedAt: null,
        lastJob: null,
      },
    ]);
  });

  it('GET /api/cron pages with limit and offset, and refuses a limit out of range naming it', async () => {
    const { queue, client } = setup();
    const ids: number[] = [];
    for (const name of ['a', 'b', 'c']) ids.push(await queue.addCronJob(schedule({ scheduleName: name })));
    const first = await read(await client.get('/api/cron?limit=2'));
    expect(first.body.schedules.map((s: { id: number }) => s.id)).toEqual(ids.slice(0, 2));
    expect(first.body.hasMore).toBe(true);
    const second = await read(await client.get('/api/cron?limit=2&offset=2'));
    expect(second.body.schedules.map((s: { id: number }) => s.id)).toEqual(ids.slice(2));
    expect(second.body.hasMore).toBe(false);
    for (const bad of ['0', '201', 'x']) {
      const { status, body } = await read(await client.get(`/api/cron?limit=${bad}`));
      expect(status).toBe(400);
      expect(body.error).toContain('`limit`');
    }
  });

  it('the last job of a schedule whose job was removed shows with a null status', async () => {
    const { clock, queue, client } = setup();
    const id = await queue.addCronJob(schedule());
    const jobId = (await queue.triggerCronJob(id))!;
    await completeJob(queue, jobId);
    clock.set(at('2030-03-01T00:00:00Z'));
    expect(await queue.cleanupOldJobs(1)).toBe(1);
    const { body } = await read(await client.get('/api/cron'));
    expect(body.schedules[0].lastJob).toEqual({ id: jobId, status: null });
  });

  it('POST pause and resume change the status; resume computes the next run from now', async () => {
    const { clock, queue, client } = setup();
    const id = await queue.addCronJob(schedule());

    expect(await read(await client.post(`/api/cron/${id}/pause`))).toEqual({ status: 200, body: { ok: true } });
    expect((await queue.getCronJob(id))!.status).toBe('paused');
    // Pausing again is harmless.
    expect((await client.post(`/api/cron/${id}/pause`)).status).toBe(200);

    clock.set(at('2030-01-01T05:10:00Z'));
    expect(await read(await client.post(`/api/cron/${id}/resume`))).toEqual({ status: 200, body: { ok: true } });
    expect(await queue.getCronJob(id)).toMatchObject({ status: 'active', nextRunAt: at('2030-01-01T06:00:00Z') });
  });

  it('POST trigger enqueues one job now and returns its id; the next run stays; overlap refused gives 409', async () => {
    const { clock, queue, client } = setup();
    const id = await queue.addCronJob(schedule());
    clock.set(at('2030-01-01T00:20:00Z'));

    const { status, body } = await read(await client.post(`/api/cron/${id}/trigger`));

    expect(status).toBe(200);
    expect(body).toEqual({ ok: true, jobId: expect.any(Number) });
    expect(await queue.getJob(body.jobId)).toMatchObject({ jobType: 'report', status: 'pending' });
    expect(await queue.getCronJob(id)).toMatchObject({ lastJobId: body.jobId, nextRunAt: at('2030-01-01T01:00:00Z') });

    const refused = await read(await client.post(`/api/cron/${id}/trigger`));
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({
      ok: false,
      error: `Schedule hourly does not allow overlap and its last job #${body.jobId} is still pending: no job was enqueued`,
    });
    expect(await queue.getJobs()).toHaveLength(1);
  });

  it('POST edit changes the expression and time zone and answers the new next run', async () => {
    const { clock, queue, client } = setup();
    const id = await queue.addCronJob(schedule());
    clock.set(at('2030-01-01T00:20:00Z'));

    const { status, body } = await read(
      await client.post(`/api/cron/${id}/edit`, undefined, { cronExpression: '*/15 * * * *' }),
    );

    expect(status).toBe(200);
    expect(body).toEqual({ ok: true, nextRunAt: '2030-01-01T00:30:00.000Z' });
    expect(await queue.getCronJob(id)).toMatchObject({
      cronExpression: '*/15 * * * *',
      nextRunAt: at('2030-01-01T00:30:00Z'),
    });

    const zoned = await read(
      await client.post(`/api/cron/${id}/edit`, undefined, { cronExpression: '0 9 * * *', timezone: 'Asia/Tokyo' }),
    );
    expect(zoned.body).toEqual({ ok: true, nextRunAt: '2030-01-02T00:00:00.000Z' });
    expect(await queue.getCronJob(id)).toMatchObject({ cronExpression: '0 9 * * *', timezone: 'Asia/Tokyo' });
  });

  it.each([
    ['an expression with 4 fields', { cronExpression: '0 * * *' }, 'cronExpression', '5-field'],
    ['a minute out of range', { cronExpression: '61 * * * *' }, 'cronExpression', '"61 * * * *"'],
    ['a missing expression', {}, 'cronExpression', 'undefined'],
    ['an expression that is not a string', { cronExpression: 5 }, 'cronExpression', '5'],
    ['an unknown time zone', { cronExpression: '0 * * * *', timezone: 'Mars/Olympus' }, 'timezone', 'Mars/Olympus'],
    ['an unknown key', { cronExpression: '0 * * * *', payload: {} }, 'body.payload', 'Unknown option'],
  ])('POST edit refuses %s with 400 naming the field and value, and changes nothing', async (_, edit, field, value) => {
    const { queue, client } = setup();
    const id = await queue.addCronJob(schedule());
    const before = await queue.getCronJob(id);
    const { status, body } = await read(await client.post(`/api/cron/${id}/edit`, undefined, edit));
    expect(status).toBe(400);
    expect(body.error).toContain(`\`${field}\``);
    expect(body.error).toContain(value);
    expect(await queue.getCronJob(id)).toEqual(before);
  });

  it('POST edit refuses a body that is not a JSON object with 400 naming body', async () => {
    const { queue, client } = setup();
    const id = await queue.addCronJob(schedule());
    const { status, body } = await read(await client.post(`/api/cron/${id}/edit`, undefined, ['0 * * * *']));
    expect(status).toBe(400);
    expect(body.error).toContain('`body`');
  });

  it('an unknown schedule id gives 404 on every action; an id that is not a positive integer gives 400', async () => {
    const { queue, client } = setup();
    await queue.addCronJob(schedule());
    for (const action of ['pause', 'resume', 'trigger', 'edit']) {
      const unknown = await read(
        await client.post(`/api/cron/987654/${action}`, undefined, { cronExpression: '* * * * *' }),
      );
      expect(unknown, action).toEqual({ status: 404, body: { error: 'Cron schedule 987654 not found' } });
      for (const bad of ['0', 'abc', '1.5', '99999999999999999999']) {
        const invalid = await read(
          await client.post(`/api/cron/${bad}/${action}`, undefined, { cronExpression: '* * * * *' }),
        );
        expect(invalid.status, `${action} ${bad}`).toBe(400);
        expect(invalid.body.error).toContain('`id`');
      }
    }
    expect(await queue.getJobs()).toEqual([]);
  });

  it('GET on an action route gives 405; POST on the list gives 405', async () => {
    const { queue, client } = setup();
    const id = await queue.addCronJob(schedule());
    expect((await client.get(`/api/cron/${id}/trigger`)).status).toBe(405);
    expect((await client.post('/api/cron')).status).toBe(405);
  });

  it('a read-only dashboard lists schedules but refuses every action with 403 and changes nothing', async () => {
    const { queue } = setup();
    const id = await queue.addCronJob(schedule());
    const client = dashboardClient(queue, { readOnly: true });
    const before = await queue.getCronJob(id);
    expect((await client.get('/api/cron')).status).toBe(200);
    for (const action of ['pause', 'resume', 'trigger', 'edit']) {
      const { status, body } = await read(
        await client.post(`/api/cron/${id}/${action}`, undefined, { cronExpression: '* * * * *' }),
      );
      expect(status, action).toBe(403);
      expect(body.error).toContain('read-only');
    }
    expect(await queue.getCronJob(id)).toEqual(before);
    expect(await queue.getJobs()).toEqual([]);
  });

  it('refuses every action from another origin with 403 and changes nothing', async () => {
    const { queue, client } = setup();
    const id = await queue.addCronJob(schedule());
    const before = await queue.getCronJob(id);
    const crossSite = { Host: HOST, Origin: 'http://evil.test', 'Sec-Fetch-Site': 'cross-site' };
    for (const action of ['pause', 'resume', 'trigger', 'edit']) {
      const { status, body } = await read(
        await client.post(`/api/cron/${id}/${action}`, crossSite, { cronExpression: '* * * * *' }),
      );
      expect(status, action).toBe(403);
      expect(body.error).toContain('Cross-origin request refused');
    }
    expect(await queue.getCronJob(id)).toEqual(before);
    expect(await queue.getJobs()).toEqual([]);
  });
});
