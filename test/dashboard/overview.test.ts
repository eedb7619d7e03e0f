/**
 * GET /api/overview: the job counts per status and job type and the throughput of the last
 * hour, as the page's overview reads them, on both backends.
 */
import { expect, it } from 'vitest';
import { forEachBackend } from '../helpers/backends.js';
import { dashboardClient, queueWithClosedDriver, read, seedJobsInEveryStatus } from './support.js';

const ONE_EACH = { pending: 1, processing: 1, completed: 1, failed: 1, cancelled: 1, waiting: 1 };
const NONE = { pending: 0, processing: 0, completed: 0, failed: 0, cancelled: 0, waiting: 0 };

forEachBackend('dashboard GET /api/overview', (ctx) => {
  it('returns the counts per status and job type, and 60 minutes of throughput', async () => {
    await seedJobsInEveryStatus(ctx.queue);
    const { status, body } = await read(await dashboardClient(ctx.queue).get('/api/overview'));
    expect(status).toBe(200);
    expect(body.counts.byStatus).toEqual(ONE_EACH);
    expect(body.counts.atLeast).toEqual([]);
    expect(body.counts.limit).toBe(10_000);
    // The seed gives each status a job type of its own: `<status>-job`.
    expect(body.counts.byJobType).toEqual(
      Object.keys(ONE_EACH)
        .sort()
        .map((s) => ({ jobType: `${s}-job`, counts: { ...NONE, [s]: 1 } })),
    );

    expect(body.throughput).toHaveLength(60);
    const minutes = body.throughput.map((m: { minute: string }) => Date.parse(m.minute));
    expect(minutes.every((t: number, i: number) => i === 0 || t - minutes[i - 1] === 60_000)).toBe(true);
    expect(minutes.at(-1)).toBeLessThanOrEqual(Date.now());
    // The seed completed one job and failed one attempt: both within the hour.
    const total = (key: 'completed' | 'failed') =>
      body.throughput.reduce((sum: number, m: Record<string, number>) => sum + m[key]!, 0);
    expect([total('completed'), total('failed')]).toEqual([1, 1]);
  });

  it('answers on a read-only dashboard too', async () => {
    const { status } = await read(await dashboardClient(ctx.queue, { readOnly: true }).get('/api/overview'));
    expect(status).toBe(200);
  });

  it('answers 405 with Allow: GET to a POST', async () => {
    const response = await dashboardClient(ctx.queue).post('/api/overview');
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET');
  });

  it('answers 500 { error } when the store fails', async () => {
    const broken = await queueWithClosedDriver(ctx);
    const { status, body } = await read(await dashboardClient(broken).get('/api/overview'));
    expect(status).toBe(500);
    expect(body.error).toEqual(expect.any(String));
    expect(body.error.length).toBeGreaterThan(0);
  });
});
