/**
 * Finding jobs in the dashboard's list (GET /api/jobs): by job type prefix, tag and payload text,
 * each with the others and the status; the payload search's bound; the hold reason of each
 * pending job of the page; 400 naming the parameter for bad input. On both backends.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { parseJobFilter } from '../../src/dashboard/api.js';
import { searchLimits } from '../../src/search-limits.js';
import { forEachBackend } from '../helpers/backends.js';
import { dashboardClient, read, type DashboardClient } from './support.js';

const DEFAULT_LIMITS = { ...searchLimits };
const HOUR_MS = 3_600_000;

forEachBackend('dashboard: finding jobs (GET /api/jobs)', (ctx) => {
  // Newest first: sms, report, email.receive, email.send (bob), email.send (alice).
  let alice: number, bob: number, receive: number, report: number, sms: number;
  let client: DashboardClient;
  beforeEach(async () => {
    [alice, bob, receive, report, sms] = (await ctx.queue.addJobs([
      { jobType: 'email.send', payload: { to: 'Alice@example.com' }, tags: ['tenant:1', 'vip'] },
      { jobType: 'email.send', payload: { to: 'bob@example.com' }, tags: ['tenant:2'] },
      { jobType: 'email.receive', payload: { from: 'alice@example.com' }, tags: ['tenant:1'] },
      { jobType: 'report', payload: { owner: 'alice' }, tags: ['tenant:1'], runAt: new Date(Date.now() + HOUR_MS) },
      { jobType: 'sms', payload: { to: '+100' }, tags: ['vip'] },
    ])) as [number, number, number, number, number];
    client = dashboardClient(ctx.queue);
  });
  afterEach(() => {
    Object.assign(searchLimits, DEFAULT_LIMITS);
  });

  const idsOf = async (query: string): Promise<number[]> => {
    const { status, body } = await read(await client.get(`/api/jobs?${query}`));
    expect(status, query).toBe(200);
    return body.jobs.map((j: { id: number }) => j.id);
  };

  it('filters by job type prefix; jobType stays an exact match', async () => {
    expect(await idsOf('jobTypePrefix=email.')).toEqual([receive, bob, alice]);
    expect(await idsOf('jobTypePrefix=email.s')).toEqual([bob, alice]);
    expect(await idsOf('jobType=email.')).toEqual([]);
    expect(await idsOf('jobType=email.send')).toEqual([bob, alice]);
  });

  it('filters by tag; several tag parameters must all match', async () => {
    expect(await idsOf('tag=tenant:1')).toEqual([report, receive, alice]);
    expect(await idsOf('tag=vip')).toEqual([sms, alice]);
    expect(await idsOf('tag=vip&tag=tenant:1')).toEqual([alice]);
    expect(await idsOf('tag=nobody')).toEqual([]);
  });

  it('searches the payload text (q), letters in any case', async () => {
    expect(await idsOf('q=alice')).toEqual([report, receive, alice]);
    expect(await idsOf('q=ALICE%40example')).toEqual([receive, alice]);
    expect(await idsOf('q=nobody')).toEqual([]);
  });

  it('combines every filter with the status and pages', async () => {
    await ctx.queue.cancelJob(receive);
    expect(await idsOf('status=pending&jobTypePrefix=email.&tag=tenant:1&q=alice')).toEqual([alice]);
    expect(await idsOf('status=cancelled&jobTypePrefix=email.&tag=tenant:1&q=alice')).toEqual([receive]);
    expect(await idsOf('jobTypePrefix=e&q=example&limit=1')).toEqual([receive]);
    expect(await idsOf('jobTypePrefix=e&q=example&limit=1&offset=1')).toEqual([bob]);
    const { body } = await read(await client.get('/api/jobs?jobTypePrefix=e&q=example&limit=2'));
    expect(body.hasMore).toBe(true);
  });

  it('searches the payloads of the newest searchLimits.payloadScan jobs of the other filters only', async () => {
    searchLimits.payloadScan = 2;
    // The newest 2 jobs are sms and report: alice's emails are past the bound.
    expect(await idsOf('q=alice')).toEqual([report]);
    // The newest 2 email.send jobs are both there.
    expect(await idsOf('jobType=email.send&q=alice')).toEqual([alice]);
  });

  it('shows why each pending job waits: scheduled, dependencies, or due', async () => {
    const blocked = await ctx.queue.addJob({ jobType: 'after', payload: {}, dependsOn: { jobIds: [sms] } });
    await ctx.queue.cancelJob(bob);
    const { body } = await read(await client.get('/api/jobs'));
    const reasons = Object.fromEntries(
      body.jobs.map((j: { id: number; holdReason: string | null }) => [j.id, j.holdReason]),
    );
    expect(reasons).toEqual({
      [blocked]: 'dependencies',
      [sms]: 'due',
      [report]: 'scheduled',
      [receive]: 'due',
      [bob]: null,
      [alice]: 'due',
    });
  });

  it('lists the job types for the type input (GET /api/job-types), or those of a prefix', async () => {
    const all = await read(await client.get('/api/job-types'));
    expect(all).toEqual({ status: 200, body: { jobTypes: ['email.receive', 'email.send', 'report', 'sms'] } });
    const some = await read(await client.get('/api/job-types?prefix=email.'));
    expect(some.body.jobTypes).toEqual(['email.receive', 'email.send']);
    const bad = await read(await client.get('/api/job-types?prefix=%20'));
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain('`prefix`');
  });

  it.each([
    ['status=done', 'status'],
    ['jobType=%20', 'jobType'],
    ['jobTypePrefix=%20', 'jobTypePrefix'],
    [`jobTypePrefix=${'x'.repeat(256)}`, 'jobTypePrefix'],
    ['tag=%20', 'tag'],
    [Array.from({ length: 11 }, (_, i) => `tag=t${i}`).join('&'), 'tag'],
    [`q=${'x'.repeat(201)}`, 'q'],
    ['q=%20%20', 'q'],
  ])('answers 400 { error } naming the parameter for %s', async (query, field) => {
    const { status, body } = await read(await client.get(`/api/jobs?${query}`));
    expect(status).toBe(400);
    expect(body.error).toContain(`\`${field}\``);
  });
});

it('parseJobFilter reads every list parameter into one queryJobs filter', () => {
  const params = new URLSearchParams('status=failed&jobType=a&jobTypePrefix=em&tag=x&tag=y&tag=x&q=hello&limit=5');
  expect(parseJobFilter(params)).toEqual({
    status: 'failed',
    jobType: 'a',
    jobTypePrefix: 'em',
    tags: { values: ['x', 'y'], mode: 'all' },
    payloadContains: 'hello',
  });
  expect(parseJobFilter(new URLSearchParams('status=&jobTypePrefix=&tag=&q='))).toEqual({});
});
