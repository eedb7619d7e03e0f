/**
 * The dashboard page in a real browser (headless Chromium through playwright-core), served by a
 * node:http server wrapping the handlers: it loads under its CSP without console errors,
 * switches tabs, opens a job's detail, shows markup in a payload as text, cancels a job,
 * after a confirmation, processes a batch, refreshes on its own, and fits a 390 px wide screen;
 * a read-only dashboard shows no action; and a form on another site cannot make it act.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { createQueueDashboard } from '../../src/dashboard/index.js';
import { DEFAULT_PAGE_SIZE } from '../../src/dashboard/shared.js';
import { waitFor } from '../helpers/wait.js';
import { forEachBackend } from '../helpers/backends.js';
import { cleanupsAfterEach, hasChromium, launch, openDashboard, renderAgain, rowIds } from './browser-support.js';
import {
  BASE_PATH,
  nodeHandlerWith,
  seedJobsInEveryStatus,
  serveDashboard,
  toFetchRequestResolvingPath,
} from './support.js';

const XSS_PAYLOAD = { html: '<script>alert(1)</script>', img: '<img src=x onerror="alert(2)">' };

/** The page's full width: wider than the viewport means a sideways scroll. */
const pageWidth = (page: Page): Promise<number> => page.evaluate('document.documentElement.scrollWidth');

forEachBackend('dashboard page in a browser', (ctx) => {
  const cleanups = cleanupsAfterEach();

  it.skipIf(!hasChromium)(
    'loads without errors, switches tabs, shows a payload as text, cancels, processes, refreshes, fits 390 px',
    async () => {
      const xss = await ctx.queue.addJob({ jobType: 'xss', payload: XSS_PAYLOAD });
      const seeded = await seedJobsInEveryStatus(ctx.queue);
      const handled: string[] = [];
      const dashboard = createQueueDashboard({
        jobQueue: ctx.queue,
        jobHandlers: { 'pending-job': async () => void handled.push('pending-job') },
        basePath: BASE_PATH,
      });
      const { page, url, problems } = await openDashboard(dashboard, cleanups);

      // The list: every job, newest first.
      await page.goto(url);
      await waitFor(async () => (await rowIds(page)).length === 7, { timeoutMs: 10_000, what: 'the job rows' });
      expect(await rowIds(page)).toEqual([
        seeded.waiting,
        seeded.cancelled,
        seeded.failed,
        seeded.completed,
        seeded.processing,
        seeded.pending,
        xss,
      ]);
      expect(await page.getAttribute('.tab[data-status=""]', 'aria-selected')).toBe('true');

      // Tabs filter by status.
      await page.click('.tab[data-status="failed"]');
      await waitFor(async () => (await rowIds(page)).join() === String(seeded.failed), {
        timeoutMs: 10_000,
        what: 'the failed tab',
      });
      expect(await page.getAttribute('.tab[data-status="failed"]', 'aria-selected')).toBe('true');
      await page.click('.tab[data-status="completed"]');
      await waitFor(async () => (await rowIds(page)).join() === String(seeded.completed), {
        timeoutMs: 10_000,
        what: 'the completed tab',
      });
      await page.click('.tab[data-status=""]');
      await waitFor(async () => (await rowIds(page)).length === 7, { timeoutMs: 10_000, what: 'the all tab' });

      // The detail view shows markup in the payload as text; nothing of it became an element.
      await page.click(`#jobs tr[data-id="${xss}"] td.type`);
      await page.waitForSelector('#detail-view:not([hidden])');
      await waitFor(async () => (await page.textContent('#detail-title'))?.includes(`#${xss}`), {
        timeoutMs: 10_000,
        what: 'the detail title',
      });
      const payloadText = (await page.textContent('#payload')) ?? '';
      expect(JSON.parse(payloadText)).toEqual(XSS_PAYLOAD);
      expect(await page.locator('script').count()).toBe(1);
      expect(await page.locator('img').count()).toBe(0);
      expect(await page.textContent('#detail-status')).toBe('pending');
      expect(await page.textContent('#events')).toContain('added');

      // Cancel: the job is cancelled in the store and the view follows.
      expect(await page.isVisible('#cancel')).toBe(true);
      expect(await page.isVisible('#retry')).toBe(false);
      // It asks first: keeping the job changes nothing.
      await page.click('#cancel');
      await page.waitForSelector('#confirm[open]');
      expect(await page.textContent('#confirm-text')).toBe(
        `Cancel job #${xss}? Its pending dependents are cancelled too.`,
      );
      await page.click('#confirm button[value="cancel"]');
      await page.waitForSelector('#confirm:not([open])', { state: 'attached' });
      expect(await ctx.queue.getJob(xss)).toMatchObject({ status: 'pending' });
      await page.click('#cancel');
      await page.click('#confirm-ok');
      await waitFor(async () => (await page.textContent('#detail-status')) === 'cancelled', {
        timeoutMs: 10_000,
        what: 'the cancelled badge',
      });
      expect(await page.textContent('#notice')).toBe(`Job #${xss} cancelled.`);
      expect(await ctx.queue.getJob(xss)).toMatchObject({ status: 'cancelled' });
      expect(await page.isVisible('#retry')).toBe(true);
      expect(await page.isVisible('#cancel')).toBe(false);
      expect(await page.textContent('#events')).toContain('cancelled');

      // The list says why a failed job failed: its latest error, under its type.
      await page.goto(`${url}#`);
      await waitFor(
        async () => (await page.textContent(`#jobs tr[data-id="${seeded.failed}"] .last-error`)) === 'smtp down',
        { timeoutMs: 10_000, what: "the failed job's error in the list" },
      );
      // A failed job shows its error history.
      await page.goto(`${url}#job=${seeded.failed}`);
      await waitFor(async () => (await page.textContent('#errors'))?.includes('smtp down'), {
        timeoutMs: 10_000,
        what: 'the error history',
      });

      // Process batch runs the configured handler on the one pending job.
      await page.click('#back');
      await page.waitForSelector('#list-view:not([hidden])');
      await page.click('#process');
      await waitFor(async () => (await page.textContent('#notice')) === 'Processed 1 job.', {
        timeoutMs: 10_000,
        what: 'the process notice',
      });
      expect(handled).toEqual(['pending-job']);
      expect(await ctx.queue.getJob(seeded.pending)).toMatchObject({ status: 'completed' });

      // Auto-refresh picks up a job added meanwhile, without a click.
      await page.check('#auto-refresh');
      const added = await ctx.queue.addJob({ jobType: 'late', payload: {} });
      await waitFor(async () => (await rowIds(page))[0] === added, {
        timeoutMs: 8_000,
        what: 'the auto-refreshed row',
      });

      // 390 px wide: nothing overflows the screen sideways.
      await page.setViewportSize({ width: 390, height: 844 });
      expect(await pageWidth(page)).toBeLessThanOrEqual(390);
      await page.goto(`${url}#job=${seeded.completed}`);
      await waitFor(async () => (await page.textContent('#output'))?.includes('sent'), {
        timeoutMs: 10_000,
        what: 'the output',
      });
      expect(await pageWidth(page)).toBeLessThanOrEqual(390);

      expect(problems).toEqual([]);
    },
    60_000,
  );

  it.skipIf(!hasChromium)('shows no action when the dashboard is read-only', async () => {
    const seeded = await seedJobsInEveryStatus(ctx.queue);
    const dashboard = createQueueDashboard({
      jobQueue: ctx.queue,
      jobHandlers: {},
      basePath: BASE_PATH,
      readOnly: true,
    });
    const { page, url, problems } = await openDashboard(dashboard, cleanups);
    for (const [id, status] of [
      [seeded.pending, 'pending'],
      [seeded.failed, 'failed'],
    ] as const) {
      await page.goto(`${url}#job=${id}`);
      await waitFor(async () => (await page.textContent('#detail-status')) === status, {
        timeoutMs: 10_000,
        what: `the ${status} job's detail`,
      });
      expect(await page.isVisible('#cancel')).toBe(false);
      expect(await page.isVisible('#retry')).toBe(false);
      expect(await page.isVisible('#process')).toBe(false);
    }
    expect(problems).toEqual([]);
  });

  it.skipIf(!hasChromium)('pages older and newer by cursor, and a job added meanwhile shifts no page', async () => {
    const ids = await ctx.queue.addJobs(
      Array.from({ length: DEFAULT_PAGE_SIZE + 5 }, (_, n) => ({ jobType: 'paged', payload: { n } })),
    );
    const newestFirst = [...ids].reverse();
    const dashboard = createQueueDashboard({ jobQueue: ctx.queue, jobHandlers: {}, basePath: BASE_PATH });
    const { page, url, problems } = await openDashboard(dashboard, cleanups);
    const shows = (want: number[], what: string) =>
      waitFor(async () => (await rowIds(page)).join() === want.join(), { timeoutMs: 10_000, what });

    await page.goto(url);
    await shows(newestFirst.slice(0, DEFAULT_PAGE_SIZE), 'the first page');
    expect(await page.isDisabled('#prev')).toBe(true);
    // A job added in front: the next page still starts after the first page's last job.
    const added = await ctx.queue.addJob({ jobType: 'paged', payload: { n: 'new' } });
    await page.click('#next');
    await shows(newestFirst.slice(DEFAULT_PAGE_SIZE), 'the second page');
    expect(page.url()).toContain(`after=${newestFirst[DEFAULT_PAGE_SIZE - 1]}`);
    expect(await page.textContent('#page-label')).toBe('Page 2');
    expect(await page.isDisabled('#next')).toBe(true);
    // Newer goes back to the newest jobs, the one added since included.
    await page.click('#prev');
    await shows([added, ...newestFirst.slice(0, DEFAULT_PAGE_SIZE - 1)], 'the first page again');
    expect(await page.isDisabled('#prev')).toBe(true);
    expect(problems).toEqual([]);
  });

  it.skipIf(!hasChromium)('a refresh keeps the job rows that did not change, so a click under way lands', async () => {
    const clicked = await ctx.queue.addJob({ jobType: 'clicked', payload: {} });
    const changed = await ctx.queue.addJob({ jobType: 'changed', payload: {} });
    const dashboard = createQueueDashboard({ jobQueue: ctx.queue, jobHandlers: {}, basePath: BASE_PATH });
    const { page, url, problems } = await openDashboard(dashboard, cleanups);
    await page.goto(url);
    await waitFor(async () => (await rowIds(page)).length === 2, { timeoutMs: 10_000, what: 'the job rows' });
    const status = (id: number) => page.textContent(`#jobs tr[data-id="${id}"] .badge`);

    // The pointer goes down on one row; the list re-renders (as auto-refresh does) with the
    // other job changed; the pointer comes up: the click still opens the row's job.
    const box = (await page.locator(`#jobs tr[data-id="${clicked}"] td.type`).boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    await ctx.queue.cancelJob(changed);
    await renderAgain(page);
    await waitFor(async () => (await status(changed)) === 'cancelled', { timeoutMs: 10_000, what: 'the re-render' });
    await page.mouse.up();
    await waitFor(async () => (await page.textContent('#detail-title'))?.startsWith(`Job #${clicked} `), {
      timeoutMs: 5_000,
      what: "the clicked job's detail",
    });
    expect(problems).toEqual([]);
  });
});

/** An attacker's site: a page whose form posts to `?action=` as soon as it loads. */
async function serveAttackerPage(): Promise<{ port: number; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    const action = new URL(req.url ?? '/', 'http://attacker.test').searchParams.get('action') ?? '';
    const attr = action.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><form method="POST" action="${attr}"></form><script>document.forms[0].submit()</script>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

forEachBackend('dashboard page in a browser, attacked from another site', (ctx) => {
  const cleanups = cleanupsAfterEach();

  it.skipIf(!hasChromium)(
    'refuses a cross-site form, also one posting to //attacker/... through a path-resolving adapter; its own page still cancels',
    async () => {
      const target = await ctx.queue.addJob({ jobType: 'email', payload: {} });
      const dashboard = createQueueDashboard({ jobQueue: ctx.queue, jobHandlers: {}, basePath: BASE_PATH });
      // The adapter docs/dashboard.md used to show: the URL's origin follows a path starting with '//'.
      const server = await serveDashboard(
        dashboard,
        BASE_PATH,
        nodeHandlerWith(dashboard, toFetchRequestResolvingPath),
      );
      cleanups.push(() => server.close());
      const attacker = await serveAttackerPage();
      cleanups.push(() => attacker.close());
      const attackerOrigin = `http://attacker.test:${attacker.port}`;
      // attacker.test is another site than 127.0.0.1, served by the attacker's server.
      const browser = await launch({ args: [`--host-resolver-rules=MAP attacker.test 127.0.0.1`] });
      cleanups.push(() => browser.close());
      const { page } = browser;

      const cancelPath = `${BASE_PATH}/api/jobs/${target}/cancel`;
      for (const action of [
        `http://127.0.0.1:${server.port}${cancelPath}`,
        `http://127.0.0.1:${server.port}//attacker.test:${attacker.port}${cancelPath}`,
      ]) {
        const [response] = await Promise.all([
          page.waitForResponse((r) => r.request().method() === 'POST'),
          page.goto(`${attackerOrigin}/?action=${encodeURIComponent(action)}`),
        ]);
        expect(response.url(), action).toBe(action);
        expect(await response.request().headerValue('sec-fetch-site')).toBe('cross-site');
        expect(await response.request().headerValue('origin')).toBe(attackerOrigin);
        expect(response.status(), action).toBe(403);
        expect(await ctx.queue.getJob(target)).toMatchObject({ status: 'pending' });
      }

      // The dashboard's own page, behind the same adapter, still acts.
      await page.goto(`${server.url}#job=${target}`);
      await page.waitForSelector('#cancel:not([hidden])');
      await page.click('#cancel');
      await page.click('#confirm-ok');
      await waitFor(async () => (await page.textContent('#detail-status')) === 'cancelled', {
        timeoutMs: 10_000,
        what: 'the cancelled badge',
      });
      expect(await ctx.queue.getJob(target)).toMatchObject({ status: 'cancelled' });
    },
    60_000,
  );
});
