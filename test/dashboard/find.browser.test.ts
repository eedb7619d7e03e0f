/**
 * Finding jobs on the dashboard page in headless Chromium: typing a job type prefix, a tag and
 * payload text narrows the list, the filters live in the URL hash (a reload keeps them), a job
 * id opens its detail, and the run-at column says why each pending job waits.
 */
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { createQueueDashboard } from '../../src/dashboard/index.js';
import { backendOf } from '../../src/queue.js';
import { forEachBackend } from '../helpers/backends.js';
import { waitFor } from '../helpers/wait.js';
import { failJob } from '../conformance/job-states.js';
import { cleanupsAfterEach, hasChromium, openDashboard, rowIds } from './browser-support.js';
import { BASE_PATH } from './support.js';

const HOUR_MS = 3_600_000;

async function waitForRows(page: Page, expected: number[], what: string): Promise<void> {
  await waitFor(async () => (await rowIds(page)).join() === expected.join(), { timeoutMs: 10_000, what });
}

forEachBackend('dashboard page: finding jobs', (ctx) => {
  const cleanups = cleanupsAfterEach();

  it.skipIf(!hasChromium)(
    'narrows the list as filters are typed, keeps them in the hash, opens a job by id, shows why jobs wait',
    async () => {
      const [alice, bob, receive, sms, report] = (await ctx.queue.addJobs([
        { jobType: 'email.send', payload: { to: 'alice@example.com' }, tags: ['tenant:1'] },
        { jobType: 'email.send', payload: { to: 'bob@example.com' }, tags: ['tenant:2'] },
        { jobType: 'email.receive', payload: { from: 'Alice' }, tags: ['tenant:1'] },
        { jobType: 'sms', payload: { to: '+100' }, tags: ['tenant:1'] },
        { jobType: 'report', payload: {}, runAt: new Date(Date.now() + HOUR_MS) },
      ])) as [number, number, number, number, number];
      const after = await ctx.queue.addJob({ jobType: 'after', payload: {}, dependsOn: { jobIds: [report] } });
      // Two jobs of one group: a claim with groupConcurrency 1 takes one and finds the group full for the other.
      const [running, queued] = (await ctx.queue.addJobs([
        { jobType: 'sync', payload: {}, group: { id: 'g' } },
        { jobType: 'sync', payload: {}, group: { id: 'g' } },
      ])) as [number, number];
      for (let i = 0; i < 2; i++) {
        await backendOf(ctx.queue).claimJobs({
          workerId: 'w',
          batchSize: 1,
          jobTypes: ['sync'],
          groupConcurrency: 1,
          now: new Date(),
        });
      }
      expect(await ctx.queue.getHoldReasons([running, queued])).toEqual([null, 'group']);

      const dashboard = createQueueDashboard({ jobQueue: ctx.queue, jobHandlers: {}, basePath: BASE_PATH });
      const { page, url, problems } = await openDashboard(dashboard, cleanups);

      await page.goto(url);
      await waitForRows(page, [queued, running, after, report, sms, receive, bob, alice], 'every job');

      // The run-at column: a time for every job, and for a pending one why it waits.
      const reason = (id: number) => page.locator(`#jobs tr[data-id="${id}"] .badge.hold`).textContent();
      expect(await reason(report)).toBe('scheduled');
      expect(await reason(after)).toBe('waiting on dependencies');
      expect(await reason(queued)).toBe('group full');
      expect(await reason(alice)).toBe('due');
      expect(await page.locator(`#jobs tr[data-id="${running}"] .badge.hold`).count()).toBe(0);
      expect(await page.locator(`#jobs tr[data-id="${running}"] td.run-at`).textContent()).not.toBe('');

      // The type input suggests the queue's job types.
      await page.focus('#job-type');
      await waitFor(async () => (await page.locator('#job-types option').count()) === 6, {
        timeoutMs: 10_000,
        what: 'the job type suggestions',
      });
      expect(
        await page.locator('#job-types option').evaluateAll((options) => options.map((o) => o.getAttribute('value'))),
      ).toEqual(['after', 'email.receive', 'email.send', 'report', 'sms', 'sync']);

      // Typing narrows the list: a job type prefix, then a tag, then payload text.
      await page.fill('#job-type', 'email.');
      await waitForRows(page, [receive, bob, alice], 'the job type prefix');
      await page.fill('#find-tag', 'tenant:1');
      await waitForRows(page, [receive, alice], 'the tag');
      await page.fill('#find-q', 'ALICE@');
      await waitForRows(page, [alice], 'the payload text');
      const hash = new URLSearchParams((await page.evaluate<string>('location.hash')).slice(1));
      expect(Object.fromEntries(hash)).toEqual({ type: 'email.', tag: 'tenant:1', q: 'ALICE@' });

      // The hash is the state: a reload shows the same list and fills the inputs.
      await page.reload();
      await waitForRows(page, [alice], 'the reloaded list');
      expect(await page.inputValue('#job-type')).toBe('email.');
      expect(await page.inputValue('#find-tag')).toBe('tenant:1');
      expect(await page.inputValue('#find-q')).toBe('ALICE@');

      // With a status tab too; clearing the inputs widens the list again.
      await page.click('.tab[data-status="processing"]');
      await waitForRows(page, [], 'no processing email');
      await page.click('.tab[data-status=""]');
      await page.fill('#find-q', '');
      await page.fill('#find-tag', '');
      await page.fill('#job-type', '');
      await waitForRows(page, [queued, running, after, report, sms, receive, bob, alice], 'every job again');

      // A list loaded while typed filters wait to apply (here a refresh) leaves them alone.
      await page.fill('#find-tag', 'tenant:2');
      await page.click('#refresh');
      await waitForRows(page, [bob], 'the typed tag, with a refresh meanwhile');
      expect(await page.inputValue('#find-tag')).toBe('tenant:2');

      // A job id opens its detail; a bad id is refused in place.
      await page.fill('#find-id', 'abc');
      await page.press('#find-id', 'Enter');
      expect(await page.isVisible('#list-view')).toBe(true);
      await page.fill('#find-id', String(bob));
      await page.press('#find-id', 'Enter');
      await page.waitForSelector('#detail-view:not([hidden])');
      await waitFor(async () => (await page.textContent('#detail-title'))?.includes(`#${bob}`), {
        timeoutMs: 10_000,
        what: 'the detail of the job by id',
      });
      expect(await page.evaluate<string>('location.hash')).toBe(`#job=${bob}`);

      expect(problems).toEqual([]);
    },
    60_000,
  );

  it.skipIf(!hasChromium)(
    'shows the retry time of a failed job and the wake-up time of a waiting one in the run-at column',
    async () => {
      const retryAt = new Date(Date.now() + 2 * HOUR_MS);
      const failed = await ctx.queue.addJob({ jobType: 'flaky', payload: {} });
      await failJob(ctx.queue, failed, { retryAt });
      const waiting = await ctx.queue.addJob({ jobType: 'sleepy', payload: {} });
      await ctx.queue
        .createProcessor({ sleepy: async (_payload, _signal, job) => job.waitFor({ hours: 3 }) }, { jobType: 'sleepy' })
        .start();
      const stored = await ctx.queue.getJob(waiting);
      expect(stored?.status).toBe('waiting');

      const dashboard = createQueueDashboard({ jobQueue: ctx.queue, jobHandlers: {}, basePath: BASE_PATH });
      const { page, url, problems } = await openDashboard(dashboard, cleanups);
      await page.goto(url);
      await waitForRows(page, [waiting, failed], 'both jobs');

      const cell = (id: number) => page.locator(`#jobs tr[data-id="${id}"] td.run-at`);
      const shown = (iso: Date) =>
        page.evaluate<string, string>(
          (at) => new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' }).format(new Date(at)),
          iso.toISOString(),
        );
      expect(await cell(failed).locator('.badge.hold').textContent()).toBe('retry');
      expect(await cell(failed).textContent()).toContain(await shown(retryAt));
      expect(await cell(waiting).locator('.badge.hold').textContent()).toBe('wakes');
      expect(await cell(waiting).textContent()).toContain(await shown(stored!.waitUntil!));
      expect(problems).toEqual([]);
    },
    60_000,
  );
});
