/**
 * What every view of the dashboard page shares: element lookup and creation (text only, never
 * markup), dates, the notice line, requests to the JSON API, the confirmation dialog, and the
 * page's read-only flag. Each view (the job list, a job's detail, cron schedules, ...) imports
 * these instead of keeping its own copy.
 */
import { JOB_STATUSES } from '../shared.js';
import type { JobStatus } from '../../types.js';

/** A value as it arrives over JSON: Dates are ISO strings. */
export type Json<T> = T extends Date
  ? string
  : T extends (infer U)[]
    ? Json<U>[]
    : T extends object
      ? { [K in keyof T]: Json<T[K]> }
      : T;
/** What the page writes as an element's text; null and undefined write nothing. */
export type TextValue = string | number | null | undefined;

export const NONE = '\u2014';
const basePath = document.body.dataset.basePath ?? '/';
const api = `${basePath === '/' ? '' : basePath}/api`;

/**
 * True when the dashboard was created with `readOnly: true`: the page shows no action, and the
 * server refuses every POST route whatever the page does.
 */
export const readOnly = document.body.dataset.readOnly === 'true';

/**
 * The element with `id`, checked to be a `type` (any HTML element by default); the page's markup
 * (page.ts) holds every id the script uses.
 */
export function $(id: string): HTMLElement;
export function $<T extends HTMLElement>(id: string, type: new () => T): T;
export function $(id: string, type: new () => HTMLElement = HTMLElement): HTMLElement {
  const node = document.getElementById(id);
  if (!node) throw new Error(`The page has no #${id}`);
  if (!(node instanceof type)) throw new Error(`#${id} is not a ${type.name}`);
  return node;
}

export function isStatus(value: string | null): value is JobStatus {
  return (JOB_STATUSES as readonly (string | null)[]).includes(value);
}

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  text?: TextValue,
  className?: string,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  if (className) node.className = className;
  return node;
}

/** What each element shown by showRows was built from (its item's key). */
const shownFrom = new WeakMap<Element, string>();

/**
 * Shows one element per item in `parent`, in the items' order. An element already shown for an
 * item with the same `key` (a string that changes whenever the element would) is kept where it
 * is instead of being built again, so a refresh that changes nothing touches nothing: a click
 * under way on a row (pointer down, then up) still lands, and focus and selection stay.
 * @example showRows($('jobs'), jobs, (job) => JSON.stringify(job), jobRow);
 */
export function showRows<T>(
  parent: Element,
  items: readonly T[],
  key: (item: T) => string,
  build: (item: T) => Element,
): void {
  const shown = new Map<string, Element>();
  for (const child of parent.children) {
    const from = shownFrom.get(child);
    if (from !== undefined && !shown.has(from)) shown.set(from, child);
  }
  const nodes = items.map((item) => {
    const from = key(item);
    const node = shown.get(from);
    if (node) {
      shown.delete(from);
      return node;
    }
    const built = build(item);
    shownFrom.set(built, from);
    return built;
  });
  // The elements no item kept leave first, so the kept ones need not move to make room.
  const keep = new Set(nodes);
  for (const child of [...parent.children]) if (!keep.has(child)) child.remove();
  let cursor = parent.firstElementChild;
  for (const node of nodes) {
    if (node === cursor) cursor = cursor.nextElementSibling;
    else parent.insertBefore(node, cursor);
  }
}

/** Marks an element shown by showRows as changed in place, so the next showRows builds it again. */
export function changedInPlace(node: Element): void {
  shownFrom.delete(node);
}

/** Fills `node` (a new span by default) as a status badge. */
export function badge(status: string, node: HTMLElement = el('span')): HTMLElement {
  node.textContent = status;
  node.className = isStatus(status) ? `badge ${status}` : 'badge';
  return node;
}

export const numberFormat = new Intl.NumberFormat();

/** "1,234", or "10,000+" for a count that reached its limit. */
export function countText(count: number, atLeast: boolean): string {
  return `${numberFormat.format(count)}${atLeast ? '+' : ''}`;
}

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
export function fmtDate(iso: string | null | undefined): string | null {
  return iso ? dateFormat.format(new Date(iso)) : null;
}

let noticeTimer: ReturnType<typeof setTimeout> | undefined;
/** Set while the notice shows a load failure, so the next successful load can hide it. */
export const noticeState = { loadFailed: false };

export function notify(message: string, isError = false): void {
  const notice = $('notice');
  notice.textContent = message;
  notice.className = isError ? 'error' : '';
  notice.hidden = false;
  noticeState.loadFailed = false;
  clearTimeout(noticeTimer);
  if (!isError) {
    noticeTimer = setTimeout(() => {
      notice.hidden = true;
    }, 4000);
  }
}

/** Calls the JSON API; a non-2xx answer throws an Error carrying the server's `error` text. */
export async function request<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
  const init: RequestInit = { method, headers: { Accept: 'application/json' }, cache: 'no-store' };
  if (body !== undefined) {
    init.headers = { Accept: 'application/json', 'Content-Type': 'application/json' };
    init.body = JSON.stringify(body);
  }
  const response = await fetch(api + path, init);
  let answer: unknown;
  try {
    answer = await response.json();
  } catch {
    answer = null;
  }
  if (!response.ok) {
    const error = answer !== null && typeof answer === 'object' ? (answer as { error?: unknown }).error : undefined;
    throw new Error(typeof error === 'string' && error ? error : `HTTP ${response.status}`);
  }
  return answer as T;
}

/**
 * Asks the operator to confirm an action in the page's own dialog (`#confirm`), never the
 * browser's `confirm()`: resolves true only when the confirm button was pressed.
 * @example if (await confirmAction('Cancel job #12?', 'Cancel job')) await request('POST', '/jobs/12/cancel');
 */
export function confirmAction(question: string, confirmLabel: string): Promise<boolean> {
  const dialog = $('confirm', HTMLDialogElement);
  $('confirm-text').textContent = question;
  $('confirm-ok').textContent = confirmLabel;
  dialog.returnValue = '';
  return new Promise((resolve) => {
    dialog.addEventListener('close', () => resolve(dialog.returnValue === 'ok'), { once: true });
    dialog.showModal();
  });
}

/**
 * Runs an action from `button`: disables it meanwhile, shows the message `run` returns (or its
 * error), then calls `after` (usually a re-render).
 */
export async function act(
  button: HTMLButtonElement,
  run: () => Promise<string | null>,
  after: () => Promise<void>,
): Promise<void> {
  button.disabled = true;
  try {
    const message = await run();
    if (message !== null) notify(message);
  } catch (error) {
    notify(error instanceof Error ? error.message : String(error), true);
  } finally {
    button.disabled = false;
  }
  await after();
}
