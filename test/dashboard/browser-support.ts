/**
 * Headless Chromium for the dashboard's browser tests (playwright-core driving the system's
 * chromium): a launch with a fresh profile, and a watch for console errors, uncaught
 * exceptions, CSP violations and dialogs.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
// Chromium comes from the system's packages (`apt-get install chromium`; `npm test` installs it when it may).
// Without it the browser cannot run: the test is skipped, and says why, rather than failing.
export const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) {
  console.warn(`[dashboard browser test] skipped: ${CHROMIUM} not found; install it with: apt-get install chromium`);
}

export async function launch(
  extraArgs: string[] = [],
): Promise<{ context: BrowserContext; page: Page; close(): Promise<void> }> {
  // A fresh profile per run, so no state (storage, cache) leaks between runs.
  const userDataDir = await mkdtemp(join(tmpdir(), 'queuedev-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      ...extraArgs,
    ],
    viewport: { width: 1280, height: 900 },
  });
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    context,
    page,
    close: async () => {
      await context.close();
      await rm(userDataDir, { recursive: true, force: true });
    },
  };
}

/** Collects console errors, uncaught exceptions, CSP violations and dialogs (an alert = XSS). */
export async function watchProblems(page: Page): Promise<string[]> {
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('dialog', (dialog) => {
    problems.push(`dialog: ${dialog.message()}`);
    void dialog.dismiss();
  });
  await page.addInitScript(
    "document.addEventListener('securitypolicyviolation', (e) => console.error('CSP violation: ' + e.violatedDirective + ' ' + e.blockedURI))",
  );
  return problems;
}
