/**
 * The page's job actions in a real browser (headless Chromium), served by a node:http server
 * wrapping the handlers: "Retry all failed" for the list's filter asks with the number of jobs
 * and retries them; a pending job's payload, priority and run time are edited from its detail,
 * an invalid payload refused in the page; a finished job is deleted after a confirmation and
 * the page goes back to the list; a read-only dashboard shows none of these.
 */
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { createQueueDashboard } from '../../src/dashboard/index.js';
import { addFailedJobs, completeJob } from '../conformance/job-states.js';
import { forEachBackend } from '../helpers/backends.js';
import { waitFor } from '../helpers/wait.js';
import { cleanupsAfterEach, hasChromium, openDashboard, rowIds } from './browser-support.js';
import { BASE_PATH } from './support.js';

forEachBackend('dashboard job actions in a browser', (ctx) => {
  const cleanups = cleanupsAfterEach();

  async function open(readOnly = false): Promise<{ page: Page; url: string; problems: string[] }> {
    const dashboard = createQueueDashboard({ jobQueue: ctx.queue, jobHandlers: {}, basePath: BASE_PATH, readOnly });
    return openDashboard(dashboard, cleanups);
  }

  it.skipIf(!hasChromium)(
    'retries all failed jobs of the filter after a confirmation with their number',
    async () => {
      const emails = await addFailedJobs(ctx.queue, 'email', 3);
      const [sms] = await addFailedJobs(ctx.queue, 'sms', 1);
      const { page, url, problems } = await open();

      await page.goto(`${url}#status=failed&type=email`);
      await waitFor(async () => (await rowIds(page)).length === 3, { timeoutMs: 10_000, what: 'the failed emails' });
      expect(await page.isVisible('#bulk-retry')).toBe(true);
      expect(await page.isVisible('#bulk-cancel')).toBe(false);

      // A payload search looks only among the newest jobs, so it offers no bulk action.
      await page.fill('#find-q', 'alice');
      await waitFor(async () => !(await page.isVisible('#bulk-retry')), { timeoutMs: 10_000, what: 'no bulk retry' });
      await page.fill('#find-q', '');
      await waitFor(async () => page.isVisible('#bulk-retry'), { timeoutMs: 10_000, what: 'the bulk retry back' });

      // Keeping the jobs changes nothing.
      await page.click('#bulk-retry');
      await page.waitForSelector('#confirm[open]');
      expect(await page.textContent('#confirm-text')).toBe('Retry 3 failed jobs of a type starting with email?');
      expect(await page.textContent('#confirm-ok')).toBe('Retry all');
      await page.click('#confirm button[value="cancel"]');
      await page.waitForSelector('#confirm:not([open])', { state: 'attached' });
      for (const id of emails) expect(await ctx.queue.getJob(id)).toMatchObject({ status: 'failed' });

      await page.click('#bulk-retry');
      await page.click('#confirm-ok');
      await waitFor(async () => (await page.textContent('#notice')) === 'Retried 3 jobs.', {
        timeoutMs: 10_000,
        what: 'the retry notice',
      });
      for (const id of emails) expect(await ctx.queue.getJob(id)).toMatchObject({ status: 'pending', attempts: 0 });
      expect(await ctx.queue.getJob(sms!)).toMatchObject({ status: 'failed' });
      await waitFor(async () => (await rowIds(page)).length === 0, { timeoutMs: 10_000, what: 'the emptied list' });

      // The pending tab offers the bulk cancel instead, for the same filter.
      await page.click('.tab[data-status="pending"]');
      await waitFor(async () => (await rowIds(page)).length === 3, { timeoutMs: 10_000, what: 'the pending emails' });
      expect(await page.isVisible('#bulk-retry')).toBe(false);
      await page.click('#bulk-cancel');
      await page.waitForSelector('#confirm[open]');
      expect(await page.textContent('#confirm-text')).toBe(
        'Cancel 3 pending jobs of a type starting with email? Their pending dependents are cancelled too.',
      );
      await page.click('#confirm-ok');
      await waitFor(async () => (await page.textContent('#notice')) === 'Cancelled 3 jobs.', {
        timeoutMs: 10_000,
        what: 'the cancel notice',
      });
      for (const id of emails) expect(await ctx.queue.getJob(id)).toMatchObject({ status: 'cancelled' });
      expect(problems).toEqual([]);
    },
    60_000,
  );

  it.skipIf(!hasChromium)(
    "edits a pending job's payload, priority and run time, refusing invalid JSON in the page",
    async () => {
      const id = await ctx.queue.addJob({ jobType: 'email', payload: { to: 'a' }, priority: 1 });
      const { page, url, problems } = await open();
      await page.goto(`${url}#job=${id}`);
      await page.waitForSelector('#edit:not([hidden])');
      expect(JSON.parse(await page.inputValue('#edit-payload'))).toEqual({ to: 'a' });
      expect(await page.inputValue('#edit-priority')).toBe('1');
      expect(await page.isVisible('#delete')).toBe(false);

      await page.fill('#edit-payload', '{"to": ');
      await page.click('#edit-save');
      await waitFor(async () => (await page.textContent('#edit-error'))?.startsWith('Payload is not valid JSON'), {
        timeoutMs: 10_000,
        what: 'the payload error',
      });
      expect(await page.getAttribute('#edit-payload', 'aria-invalid')).toBe('true');
      expect(await ctx.queue.getJob(id)).toMatchObject({ payload: { to: 'a' }, priority: 1 });

      await page.fill('#edit-payload', '{"to": "b", "cc": ["c"]}');
      await page.fill('#edit-priority', '5');
      await page.fill('#edit-run-at', '2031-02-03T04:05:06');
      await page.click('#edit-save');
      await waitFor(async () => (await page.textContent('#notice')) === `Job #${id} saved.`, {
        timeoutMs: 10_000,
        what: 'the saved notice',
      });
      // The browser reads the run time in its own time zone, which is this process's.
      expect(await ctx.queue.getJob(id)).toMatchObject({
        payload: { to: 'b', cc: ['c'] },
        priority: 5,
        runAt: new Date('2031-02-03T04:05:06'),
      });
      expect(await page.isVisible('#edit-error')).toBe(false);
      await waitFor(async () => (await page.textContent('#events'))?.includes('edited'), {
        timeoutMs: 10_000,
        what: 'the edited event',
      });
      expect(problems).toEqual([]);
    },
    60_000,
  );

  it.skipIf(!hasChromium)(
    'deletes a finished job after a confirmation and goes back to the list',
    async () => {
      const [done, other] = await ctx.queue.addJobs([
        { jobType: 'done', payload: {} },
        { jobType: 'other', payload: {} },
      ]);
      await completeJob(ctx.queue, done!);
      const { page, url, problems } = await open();
      await page.goto(`${url}#status=completed`);
      await waitFor(async () => (await rowIds(page)).join() === String(done), { timeoutMs: 10_000, what: 'the row' });
      await page.goto(`${url}#job=${done}`);
      await page.waitForSelector('#delete:not([hidden])');
      expect(await page.isVisible('#edit')).toBe(false);

      await page.click('#delete');
      await page.waitForSelector('#confirm[open]');
      expect(await page.textContent('#confirm-text')).toBe(
        `Delete job #${done} and its event history? This cannot be undone.`,
      );
      await page.click('#confirm-ok');
      await page.waitForSelector('#list-view:not([hidden])');
      await waitFor(async () => (await page.textContent('#notice')) === `Job #${done} deleted.`, {
        timeoutMs: 10_000,
        what: 'the deleted notice',
      });
      expect(await ctx.queue.getJob(done!)).toBeNull();
      expect(await ctx.queue.getJob(other!)).toMatchObject({ status: 'pending' });
      await waitFor(async () => (await rowIds(page)).length === 0, { timeoutMs: 10_000, what: 'the emptied list' });
      expect(problems).toEqual([]);
    },
    60_000,
  );

  it.skipIf(!hasChromium)('shows no bulk action, Delete or edit form when read-only', async () => {
    const [failed] = await addFailedJobs(ctx.queue, 'email', 1);
    const pending = await ctx.queue.addJob({ jobType: 'email', payload: {} });
    const { page, url, problems } = await open(true);
    await page.goto(url);
    await waitFor(async () => (await rowIds(page)).length === 2, { timeoutMs: 10_000, what: 'the rows' });
    expect(await page.isVisible('#bulk-retry')).toBe(false);
    expect(await page.isVisible('#bulk-cancel')).toBe(false);
    for (const [id, status] of [
      [failed!, 'failed'],
      [pending, 'pending'],
    ] as const) {
      await page.goto(`${url}#job=${id}`);
      await waitFor(async () => (await page.textContent('#detail-status')) === status, {
        timeoutMs: 10_000,
        what: `the ${status} job`,
      });
      expect(await page.isVisible('#delete')).toBe(false);
      expect(await page.isVisible('#edit')).toBe(false);
    }
    expect(problems).toEqual([]);
  });
});
