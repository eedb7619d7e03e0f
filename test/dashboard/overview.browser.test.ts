/**
 * The overview of the dashboard page in a real browser (headless Chromium through
 * playwright-core): counts on the status tabs, "10,000+" for a status past the limit, the chart
 * of the last hour drawn as SVG under the page's CSP, and the job type table whose links filter
 * the list.
 */
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { createQueueDashboard } from '../../src/dashboard/index.js';
import { forEachBackend } from '../helpers/backends.js';
import { waitFor } from '../helpers/wait.js';
import { completeJob } from '../conformance/job-states.js';
import { cleanupsAfterEach, hasChromium, openDashboard, rowIds } from './browser-support.js';
import { BASE_PATH, seedJobsInEveryStatus } from './support.js';

const hashParams = async (page: Page) => new URLSearchParams((await page.evaluate<string>('location.hash')).slice(1));
const tabText = async (page: Page, status: string) =>
  ((await page.textContent(`.tab[data-status="${status}"]`)) ?? '').replace(/\s+/g, ' ').trim();

forEachBackend('dashboard overview in a browser', (ctx) => {
  const cleanups = cleanupsAfterEach();

  it.skipIf(!hasChromium)(
    'shows counts on the tabs, a chart of the last hour and a job type table that filters the list',
    async () => {
      const seeded = await seedJobsInEveryStatus(ctx.queue);
      // A job type holding markup shows as text in the type table.
      const markup = '<img src=x onerror="alert(1)">';
      await ctx.queue.cancelJob(await ctx.queue.addJob({ jobType: markup, payload: {} }));
      for (let n = 0; n < 3; n++)
        await completeJob(ctx.queue, await ctx.queue.addJob({ jobType: 'report', payload: {} }));
      // 10,001 pending jobs: past the default limit of 10,000.
      for (let batch = 0; batch < 10; batch++) {
        await ctx.queue.addJobs(Array.from({ length: 1_000 }, (_, i) => ({ jobType: 'bulk', payload: { i } })));
      }
      const { page, url, problems } = await openDashboard(
        createQueueDashboard({ jobQueue: ctx.queue, jobHandlers: {}, basePath: BASE_PATH }),
        cleanups,
        { locale: 'en-US' },
      );

      await page.goto(url);
      await waitFor(async () => (await tabText(page, 'failed')) === 'Failed 1', {
        timeoutMs: 15_000,
        what: 'the count on the failed tab',
      });
      expect(await tabText(page, 'pending')).toBe('Pending 10,000+');
      expect(await tabText(page, 'completed')).toBe('Completed 4');
      expect(await tabText(page, 'cancelled')).toBe('Cancelled 2');
      expect(await tabText(page, 'waiting')).toBe('Waiting 1');
      expect(await tabText(page, '')).toBe('All 10,009+');
      // The tab keeps its role and its name reads as a label and a count.
      expect(await page.getByRole('tab', { name: 'Failed 1' }).count()).toBe(1);

      // The chart: SVG with an accessible name, bars for the minutes that had work.
      const chart = page.locator('#throughput-chart svg');
      expect(await chart.getAttribute('role')).toBe('img');
      expect(await page.textContent('#throughput-title')).toBe('Completed and failed jobs per minute');
      expect(await page.textContent('#throughput-desc')).toBe('Last 60 minutes: 4 completed, 1 failed.');
      expect(await chart.locator('rect.completed').count()).toBeGreaterThanOrEqual(1);
      expect(await chart.locator('rect.failed').count()).toBe(1);
      const barTitles = await chart.locator('g.minute title').allTextContents();
      expect(barTitles.join(' | ')).toMatch(/completed, 1 failed/);

      // The job type table: one row per type, its counts per status; a note for the capped status.
      const typeRow = page.locator('#type-counts tr', { has: page.locator('th', { hasText: /^bulk$/ }) });
      expect(await typeRow.locator('td').allTextContents()).toEqual(['10,000', '0', '0', '0', '0', '0']);
      expect(await page.textContent('#types-note')).toBe('Pending: counted among the newest 10,000 jobs.');
      expect(await page.locator('#type-counts th a', { hasText: markup }).count()).toBe(1);
      expect(await page.locator('#overview img').count()).toBe(0);

      // A type's name filters the list by it, on the status shown.
      await page.click('.tab[data-status="failed"]');
      await waitFor(async () => (await rowIds(page)).join() === String(seeded.failed), {
        timeoutMs: 10_000,
        what: 'the failed tab',
      });
      // Its links follow the tab once the overview has loaded again.
      await page.click('#type-counts th a[href="#status=failed&type=report"]');
      await waitFor(async () => (await rowIds(page)).length === 0, { timeoutMs: 10_000, what: 'no failed report' });
      expect((await hashParams(page)).get('type')).toBe('report');
      await page.click('#type-counts th a[href="#status=failed&type=failed-job"]');
      await waitFor(async () => (await rowIds(page)).join() === String(seeded.failed), {
        timeoutMs: 10_000,
        what: 'the failed-job filter',
      });
      const hash = await hashParams(page);
      expect([hash.get('status'), hash.get('type')]).toEqual(['failed', 'failed-job']);
      expect(await page.inputValue('#job-type')).toBe('failed-job');
      // The overview loads beside the list: its current row follows once it has loaded.
      await waitFor(
        async () =>
          (await page.getAttribute('#type-counts tr[aria-current="true"] th a', 'href')) ===
          '#status=failed&type=failed-job',
        { timeoutMs: 10_000, what: 'the current type row' },
      );

      // A count links to the list of that status and type.
      await page.click('#type-counts td a[href="#status=completed&type=completed-job"]');
      await waitFor(async () => (await rowIds(page)).join() === String(seeded.completed), {
        timeoutMs: 10_000,
        what: 'the completed-job count link',
      });
      expect(problems).toEqual([]);
    },
    60_000,
  );
});
