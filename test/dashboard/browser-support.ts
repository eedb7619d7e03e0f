/**
 * Headless Chromium for the dashboard's browser tests (playwright-core driving the system's
 * chromium): a fresh context per test in a browser shared by the file's tests, a watch for
 * console errors, uncaught exceptions, CSP violations and dialogs, a served dashboard opened in
 * it, and what the tests read off the page.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, afterEach } from 'vitest';
import type { QueueDashboard } from '../../src/dashboard/index.js';
import { BASE_PATH, serveDashboard } from './support.js';

export const CHROMIUM = '/usr/bin/chromium';
// Chromium comes from the system's packages (`apt-get install chromium`; `npm test` installs it when it may).
// Without it the browser cannot run: the test is skipped, and says why, rather than failing.
export const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) {
  console.warn(`[dashboard browser test] skipped: ${CHROMIUM} not found; install it with: apt-get install chromium`);
}

/** How to launch: extra command line switches, and the browser's locale (default: the system's). */
export interface LaunchOptions {
  args?: string[];
  locale?: string;
}

/** A browser context of its own with its one page; `close` ends the context. */
export interface LaunchedBrowser {
  context: BrowserContext;
  page: Page;
  close(): Promise<void>;
}

const SWITCHES = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

function start(args: string[]): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: [...SWITCHES, ...args] });
}

/**
 * One Chromium per test file, started on first use and closed after the file's tests: a launch
 * costs seconds, a context a fraction of one. Each test still gets a context of its own, which
 * shares no storage, cache or cookies with any other.
 */
let shared: Promise<Browser> | undefined;
afterAll(async () => {
  const browser = shared;
  shared = undefined;
  if (browser) await (await browser).close();
});

/**
 * A fresh browser context with a 1280×900 viewport and its page. Extra switches apply to the
 * whole browser, so a launch with `args` starts a Chromium of its own, closed with the context.
 */
export async function launch({ args = [], locale }: LaunchOptions = {}): Promise<LaunchedBrowser> {
  const own = args.length > 0 ? start(args) : undefined;
  const browser = await (own ?? (shared ??= start([])));
  const context = await browser.newContext({
    viewport: { width: 1280, height: 900 },
    ...(locale === undefined ? {} : { locale }),
  });
  const page = await context.newPage();
  return {
    context,
    page,
    close: async () => {
      await context.close();
      if (own) await browser.close();
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

/** What a test opened (servers, browsers), to close once it ends. */
export type Cleanups = (() => Promise<void>)[];

/** A list of cleanups run after each test of the enclosing suite, the last added first. */
export function cleanupsAfterEach(): Cleanups {
  const cleanups: Cleanups = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  return cleanups;
}

/**
 * Serves `dashboard` at BASE_PATH and opens a fresh browser context on it, both closed by `cleanups`;
 * `problems` collects what watchProblems sees. The page is not loaded yet: go to `url`.
 */
export async function openDashboard(
  dashboard: QueueDashboard,
  cleanups: Cleanups,
  options: LaunchOptions = {},
): Promise<{ page: Page; url: string; problems: string[] }> {
  const server = await serveDashboard(dashboard, BASE_PATH);
  cleanups.push(() => server.close());
  const browser = await launch(options);
  cleanups.push(() => browser.close());
  return { page: browser.page, url: server.url, problems: await watchProblems(browser.page) };
}

/** The job ids of the list's rows, in the order shown. */
export const rowIds = (page: Page): Promise<number[]> =>
  page.locator('#jobs tr').evaluateAll((rows) => rows.map((row) => Number(row.getAttribute('data-id'))));

/** Makes the page render its view again from the API, as its auto-refresh does. */
export const renderAgain = (page: Page): Promise<void> =>
  page.evaluate("void window.dispatchEvent(new HashChangeEvent('hashchange'))");
