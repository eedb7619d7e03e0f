/**
 * The job detail view in a real browser (headless Chromium through playwright-core): each error
 * history entry shows its stack trace, as text, folded in a <details> element; "Locked by" and
 * "Locked at" show for a processing job only.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { afterEach, expect, it } from 'vitest';
import { createQueueDashboard } from '../../src/dashboard/index.js';
import { forEachBackend } from '../helpers/backends.js';
import { waitFor } from '../helpers/wait.js';
import { claimJob } from '../conformance/job-states.js';
import { BASE_PATH, serveDashboard } from './support.js';

const CHROMIUM = '/usr/bin/chromium';
// Without the system's Chromium (`apt-get install chromium`) the browser cannot run: skipped, saying why.
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) {
  console.warn(
    `[dashboard error detail test] skipped: ${CHROMIUM} not found; install it with: apt-get install chromium`,
  );
}

async function launch(): Promise<{ page: Page; close(): Promise<void> }> {
  const userDataDir = await mkdtemp(join(tmpdir(), 'queuedev-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
    viewport: { width: 1280, height: 900 },
  });
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    page,
    close: async () => {
      await context.close();
      await rm(userDataDir, { recursive: true, force: true });
    },
  };
}

/** The property labels of the detail view, with their values. */
const properties = (page: Page): Promise<Record<string, string>> =>
  page
    .locator('#props > div')
    .evaluateAll((items) =>
      Object.fromEntries(
        items.map((item) => [item.querySelector('dt')?.textContent ?? '', item.querySelector('dd')?.textContent ?? '']),
      ),
    );

forEachBackend('dashboard error detail in a browser', (ctx) => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it.skipIf(!hasChromium)(
    'shows each error’s stack trace as text in a <details>, and "Locked by" only while processing',
    async () => {
      const failed = await ctx.queue.addJob({ jobType: 'charge', payload: {}, maxAttempts: 1 });
      await ctx.queue
        .createProcessor({
          charge: async function chargeTheCard() {
            throw new Error('card <b>declined</b>');
          },
        })
        .start();
      const stack = (await ctx.queue.getJob(failed))?.errorHistory[0]?.stack;
      expect(stack).toContain('chargeTheCard');
      const processing = await ctx.queue.addJob({ jobType: 'slow', payload: {} });
      await claimJob(ctx.queue, processing);

      const dashboard = createQueueDashboard({ jobQueue: ctx.queue, jobHandlers: {}, basePath: BASE_PATH });
      const server = await serveDashboard(dashboard, BASE_PATH);
      cleanups.push(() => server.close());
      const browser = await launch();
      cleanups.push(() => browser.close());
      const { page } = browser;
      const problems: string[] = [];
      page.on('pageerror', (error) => problems.push(error.message));
      page.on('console', (message) => {
        if (message.type() === 'error') problems.push(message.text());
      });

      await page.goto(`${server.url}#job=${failed}`);
      const details = page.locator('#errors li details');
      await waitFor(async () => (await details.count()) === 1, { timeoutMs: 10_000, what: 'the stack trace' });
      expect(await page.locator('#errors li > div').textContent()).toBe('card <b>declined</b>');
      expect(await page.locator('#errors b').count()).toBe(0);
      expect(await details.locator('summary').textContent()).toBe('Stack trace');
      const pre = details.locator('pre');
      // Folded until opened.
      expect(await pre.isVisible()).toBe(false);
      await details.locator('summary').click();
      expect(await pre.isVisible()).toBe(true);
      expect(await pre.textContent()).toBe(stack);
      const failedProps = await properties(page);
      expect(failedProps.Status).toBe('failed');
      expect(failedProps).not.toHaveProperty('Locked by');
      expect(failedProps).not.toHaveProperty('Locked at');

      await page.goto(`${server.url}#job=${processing}`);
      await waitFor(async () => (await properties(page)).Status === 'processing', {
        timeoutMs: 10_000,
        what: 'the processing job',
      });
      expect((await properties(page))['Locked by']).toBe('conformance-worker');
      expect(await page.locator('#errors li details').count()).toBe(0);
      expect(problems).toEqual([]);
    },
  );
});
