/**
 * The job detail view in a real browser (headless Chromium through playwright-core): each error
 * history entry shows its stack trace, as text, folded in a <details> element; "Locked by" and
 * "Locked at" show for a processing job only.
 */
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { createQueueDashboard } from '../../src/dashboard/index.js';
import { forEachBackend } from '../helpers/backends.js';
import { waitFor } from '../helpers/wait.js';
import { claimJob } from '../conformance/job-states.js';
import { cleanupsAfterEach, hasChromium, openDashboard } from './browser-support.js';
import { BASE_PATH } from './support.js';

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
  const cleanups = cleanupsAfterEach();

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
      const { page, url, problems } = await openDashboard(dashboard, cleanups);

      await page.goto(`${url}#job=${failed}`);
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

      await page.goto(`${url}#job=${processing}`);
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
