/**
 * The cron view (`#view=cron`) in headless Chromium, on both backends: it lists schedules with
 * expression, time zone, job type, status, next run and last job (linked to its detail); pause
 * and resume; trigger now after a confirmation creates a job; the expression is edited inline,
 * a bad one refused with the server's message; a read-only dashboard shows no action and fits
 * a 390 px wide screen.
 */
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { createQueueDashboard } from '../../src/dashboard/index.js';
import { completeJob } from '../conformance/job-states.js';
import { forEachBackend } from '../helpers/backends.js';
import { waitFor } from '../helpers/wait.js';
import { cleanupsAfterEach, hasChromium, openDashboard, renderAgain } from './browser-support.js';
import { BASE_PATH } from './support.js';

/** The text of each cell of the schedule row `id`. */
const cells = (page: Page, id: number): Promise<string[]> =>
  page.locator(`#cron-schedules tr[data-id="${id}"] td`).allTextContents();
const rowCount = (page: Page): Promise<number> => page.locator('#cron-schedules tr').count();
/** A date as the page writes it (dom.ts fmtDate), in the browser's own locale and zone. */
const pageDate = (page: Page, date: Date): Promise<string> =>
  page.evaluate(
    (iso) => new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' }).format(new Date(iso)),
    date.toISOString(),
  );

forEachBackend('dashboard cron view in a browser', (ctx) => {
  const cleanups = cleanupsAfterEach();

  async function open(readOnly = false): Promise<{ page: Page; url: string; problems: string[] }> {
    const dashboard = createQueueDashboard({ jobQueue: ctx.queue, jobHandlers: {}, basePath: BASE_PATH, readOnly });
    return openDashboard(dashboard, cleanups);
  }

  it.skipIf(!hasChromium)(
    'lists schedules with next run and last job; pauses, resumes, triggers after confirmation, edits the expression',
    async () => {
      const queue = ctx.queue;
      const hourly = await queue.addCronJob({
        scheduleName: 'hourly',
        cronExpression: '0 * * * *',
        jobType: 'report',
        payload: {},
      });
      const berlin = await queue.addCronJob({
        scheduleName: 'berlin',
        cronExpression: '30 9 * * *',
        timezone: 'Europe/Berlin',
        jobType: 'mail',
        payload: {},
      });
      const lastJob = (await queue.triggerCronJob(hourly))!;
      await completeJob(queue, lastJob);
      const { page, url, problems } = await open();

      // Reached from the header's navigation.
      await page.goto(url);
      await page.click('#nav-cron');
      await page.waitForSelector('#cron-view:not([hidden])');
      await waitFor(async () => (await rowCount(page)) === 2, { timeoutMs: 10_000, what: 'the schedule rows' });
      expect(await page.isVisible('#list-view')).toBe(false);
      expect(await page.getAttribute('#nav-cron', 'aria-current')).toBe('page');

      const h = (await queue.getCronJob(hourly))!;
      const [name, expression, jobType, status, nextRun, last, actions] = await cells(page, hourly);
      expect([name, expression, jobType, status]).toEqual(['hourly', '0 * * * *', 'report', 'active']);
      expect(nextRun).toBe(await pageDate(page, h.nextRunAt));
      expect(last).toContain(`#${lastJob}`);
      expect(last).toContain('completed');
      expect(actions).toBe('PauseTrigger nowEdit');
      const b = (await queue.getCronJob(berlin))!;
      const berlinCells = await cells(page, berlin);
      expect(berlinCells.slice(1, 5)).toEqual([
        '30 9 * * *Europe/Berlin',
        'mail',
        'active',
        await pageDate(page, b.nextRunAt),
      ]);
      expect(berlinCells[5]).toBe('\u2014');

      // Pause: the store and the row follow; the next run shows "paused". Resume undoes it.
      const row = (id: number) => page.locator(`#cron-schedules tr[data-id="${id}"]`);
      await row(hourly).locator('button[data-action="pause"]').click();
      await waitFor(async () => (await cells(page, hourly))[3] === 'paused', { timeoutMs: 10_000, what: 'paused' });
      expect((await cells(page, hourly))[4]).toBe('paused');
      expect((await queue.getCronJob(hourly))!.status).toBe('paused');
      expect(await page.textContent('#notice')).toBe('Schedule hourly paused.');
      await row(hourly).locator('button[data-action="resume"]').click();
      await waitFor(async () => (await cells(page, hourly))[3] === 'active', { timeoutMs: 10_000, what: 'active' });
      expect((await queue.getCronJob(hourly))!.status).toBe('active');

      // Trigger now asks first: keeping changes nothing; confirming enqueues a job.
      const jobsBefore = (await queue.getJobs()).length;
      await row(hourly).locator('button[data-action="trigger"]').click();
      await page.waitForSelector('#confirm[open]');
      expect(await page.textContent('#confirm-text')).toBe(
        'Enqueue a report job of schedule hourly now? Its regular runs stay as scheduled.',
      );
      await page.click('#confirm button[value="cancel"]');
      await page.waitForSelector('#confirm:not([open])', { state: 'attached' });
      expect(await queue.getJobs()).toHaveLength(jobsBefore);
      await row(hourly).locator('button[data-action="trigger"]').click();
      await page.click('#confirm-ok');
      const triggered = await waitFor(async () => (await queue.getCronJob(hourly))!.lastJobId !== lastJob, {
        timeoutMs: 10_000,
        what: 'the triggered job',
      }).then(async () => (await queue.getCronJob(hourly))!.lastJobId!);
      expect(await queue.getJob(triggered)).toMatchObject({ jobType: 'report', status: 'pending' });
      await waitFor(async () => (await cells(page, hourly))[5]?.includes(`#${triggered}`), {
        timeoutMs: 10_000,
        what: 'the new last job',
      });
      expect((await cells(page, hourly))[5]).toContain('pending');
      expect(await page.textContent('#notice')).toBe(`Schedule hourly enqueued job #${triggered}.`);

      // Edit: a bad expression is refused with the server's message and the form stays open.
      await row(hourly).locator('button[data-action="edit"]').click();
      const input = row(hourly).locator('input[name="cronExpression"]');
      await input.fill('61 * * * *');
      await row(hourly).locator('button[data-action="save"]').click();
      await waitFor(async () => (await page.getAttribute('#notice', 'class')) === 'error', {
        timeoutMs: 10_000,
        what: 'the refusal',
      });
      expect(await page.textContent('#notice')).toContain('`cronExpression`');
      expect(await input.isVisible()).toBe(true);
      expect((await queue.getCronJob(hourly))!.cronExpression).toBe('0 * * * *');
      await input.fill('*/10 * * * *');
      await row(hourly).locator('button[data-action="save"]').click();
      await waitFor(async () => (await cells(page, hourly))[1] === '*/10 * * * *', {
        timeoutMs: 10_000,
        what: 'the edited expression',
      });
      const edited = (await queue.getCronJob(hourly))!;
      expect(edited.cronExpression).toBe('*/10 * * * *');
      expect((await cells(page, hourly))[4]).toBe(await pageDate(page, edited.nextRunAt));

      // The last job links to its detail.
      await row(hourly).locator(`a[href="#job=${triggered}"]`).click();
      await page.waitForSelector('#detail-view:not([hidden])');
      await waitFor(async () => (await page.textContent('#detail-title'))?.includes(`#${triggered}`), {
        timeoutMs: 10_000,
        what: 'the last job detail',
      });
      expect(await page.isVisible('#cron-view')).toBe(false);

      // The one console line is Chromium's own note of the refused edit's 400.
      expect(problems).toEqual([
        'console: Failed to load resource: the server responded with a status of 400 (Bad Request)',
      ]);
    },
    60_000,
  );

  it.skipIf(!hasChromium)(
    'a refresh keeps the rows that did not change: a click under way lands, a closed editor goes away',
    async () => {
      const queue = ctx.queue;
      const kept = await queue.addCronJob({
        scheduleName: 'kept',
        cronExpression: '0 * * * *',
        jobType: 'a',
        payload: {},
      });
      const other = await queue.addCronJob({
        scheduleName: 'other',
        cronExpression: '0 * * * *',
        jobType: 'b',
        payload: {},
      });
      const { page, url, problems } = await open();
      await page.goto(`${url}#view=cron`);
      await waitFor(async () => (await rowCount(page)) === 2, { timeoutMs: 10_000, what: 'the schedule rows' });

      // The pointer goes down on one row's button; the page re-renders (as auto-refresh does)
      // with another schedule changed; the pointer comes up: the click still lands.
      const trigger = page.locator(`#cron-schedules tr[data-id="${kept}"] button[data-action="trigger"]`);
      const box = (await trigger.boundingBox())!;
      await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
      await page.mouse.down();
      await queue.pauseCronJob(other);
      await renderAgain(page);
      await waitFor(async () => (await cells(page, other))[3] === 'paused', {
        timeoutMs: 10_000,
        what: 'the re-render',
      });
      await page.mouse.up();
      await page.waitForSelector('#confirm[open]', { timeout: 5_000 });
      await page.click('#confirm button[value="cancel"]');
      await page.waitForSelector('#confirm:not([open])', { state: 'attached' });

      // An editor closed with Escape leaves the expression shown again, though nothing changed.
      const row = page.locator(`#cron-schedules tr[data-id="${kept}"]`);
      await row.locator('button[data-action="edit"]').click();
      await row.locator('input[name="cronExpression"]').press('Escape');
      await waitFor(async () => (await row.locator('form').count()) === 0, {
        timeoutMs: 10_000,
        what: 'the editor closed',
      });
      expect((await cells(page, kept))[1]).toBe('0 * * * *');
      expect(problems).toEqual([]);
    },
    // Its waits alone may take 35 s on a loaded machine, as the first test's do.
    60_000,
  );

  it.skipIf(!hasChromium)('a read-only dashboard lists schedules without any action', async () => {
    const id = await ctx.queue.addCronJob({
      scheduleName: 'hourly',
      cronExpression: '0 * * * *',
      jobType: 'report',
      payload: {},
    });
    const { page, url, problems } = await open(true);
    await page.goto(`${url}#view=cron`);
    await waitFor(async () => (await rowCount(page)) === 1, { timeoutMs: 10_000, what: 'the schedule row' });
    expect((await cells(page, id)).slice(0, 4)).toEqual(['hourly', '0 * * * *', 'report', 'active']);
    expect(await page.locator('#cron-view button').count()).toBe(0);
    expect(await page.locator('#cron-view th').allTextContents()).not.toContain('Actions');
    // 390 px wide: the table scrolls inside its frame; the page does not scroll sideways.
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    expect(problems).toEqual([]);
  });
});
