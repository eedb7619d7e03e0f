/**
 * The dashboard page's script, run in the browser. scripts/build-dashboard.ts bundles it (with
 * the constants of ../shared.ts) into page-script.generated.ts, which page.ts inlines under the
 * CSP nonce; tsconfig.json beside this file type-checks it with the DOM library.
 *
 * Every piece of job data is written with textContent or as a property (never innerHTML), so a
 * payload holding markup shows as text. State lives in the URL hash:
 * `#status=failed&type=email.&tag=t&q=alice&after=1200&page=2` for the list (find.ts has the
 * filters; `after` starts a keyset page, `page` only numbers it),
 * `#job=12` for a job's detail, `#view=cron` for the cron schedules (cron.ts), so the back button
 * and reloads work.
 */
import type { JobEvent, JobRecord, JobStatus } from '../../types.js';
import { CANCELLABLE_STATUSES, DEFAULT_PAGE_SIZE, RETRYABLE_STATUSES } from '../shared.js';
import type { JobSummary } from '../summary.js';
import { initActions, showDetailActions, showListActions } from './actions.js';
import {
  $,
  act,
  badge,
  confirmAction,
  el,
  fmtDate,
  isStatus,
  noticeState,
  notify,
  readOnly,
  request,
  showRows,
  type Json,
  type TextValue,
} from './dom.js';
import { isCronView, renderCron, showCronView } from './cron.js';
import { errorItem } from './error-history.js';
import { findParams, initFind, readFind, runAtCell, showFind, writeFind, type FindState } from './find.js';
import { loadOverview } from './overview.js';

type JobJson = Json<JobRecord>;
interface ListState extends FindState {
  job: number | null;
  status: JobStatus | '';
  /** The page holds the jobs listed after this id (a keyset page); null for the newest jobs. */
  after: number | null;
  /** 0-based: how many pages the list went through from the newest to this one (the label). */
  page: number;
}

const REFRESH_MS = 3000;

let generation = 0;
let busy = false;
let listHash = '#';
let shownJobId: number | null = null;
let timer: ReturnType<typeof setInterval> | undefined;
/** Where the next (older) page of the shown list starts; null on the last page. */
let nextAfter: number | null = null;
/**
 * The hashes of the pages "Older" left, newest first, so "Newer" goes back to exactly them: a
 * keyset page knows the page after it, not the one before. Reset when the list's filter changes.
 */
let newer: string[] = [];

function readHash(hash = location.hash): ListState {
  const p = new URLSearchParams(hash.slice(1));
  const job = Number(p.get('job'));
  const after = Number(p.get('after'));
  const page = Number.parseInt(p.get('page') ?? '1', 10);
  const status = p.get('status');
  const keyset = Number.isSafeInteger(after) && after > 0;
  return {
    job: Number.isSafeInteger(job) && job > 0 ? job : null,
    status: isStatus(status) ? status : '',
    ...readFind(p),
    after: keyset ? after : null,
    page: keyset && Number.isSafeInteger(page) && page > 1 ? page - 1 : 0,
  };
}

function hashFor(state: ListState): string {
  const p = new URLSearchParams();
  if (state.status) p.set('status', state.status);
  writeFind(state, p);
  if (state.after !== null) {
    p.set('after', String(state.after));
    p.set('page', String(state.page + 1));
  }
  return `#${p.toString()}`;
}

function go(hash: string): void {
  if ((location.hash || '#') === hash) void render();
  else location.hash = hash;
}

// List view

/** The list's filter as the API's query parameters: what the list shows and bulk actions touch. */
function listFilter(state: ListState): URLSearchParams {
  const p = new URLSearchParams();
  if (state.status) p.set('status', state.status);
  findParams(state, p);
  return p;
}

async function loadList(state: ListState, gen: number): Promise<void> {
  const p = listFilter(state);
  p.set('limit', String(DEFAULT_PAGE_SIZE));
  if (state.after !== null) p.set('after', String(state.after));
  const body = await request<{ jobs: Json<JobSummary>[]; nextAfter: number | null }>('GET', `/jobs?${p.toString()}`);
  if (gen !== generation) return;
  nextAfter = body.nextAfter;
  for (const tab of document.querySelectorAll<HTMLElement>('.tab')) {
    tab.setAttribute('aria-selected', String(tab.dataset.status === state.status));
  }
  showFind(state);
  showRows($('jobs'), body.jobs, (job) => JSON.stringify(job), jobRow);
  $('empty').hidden = body.jobs.length > 0;
  $('prev', HTMLButtonElement).disabled = state.after === null;
  $('next', HTMLButtonElement).disabled = nextAfter === null;
  $('page-label').textContent = `Page ${state.page + 1}`;
  showListActions(state.status, state.q !== '');
}

function jobRow(job: Json<JobSummary>): HTMLTableRowElement {
  const id = job.id;
  const row = el('tr');
  row.tabIndex = 0;
  row.dataset.id = String(id);
  const link = el('a', `#${id}`);
  link.href = `#job=${id}`;
  const idCell = el('td');
  idCell.append(link);
  const statusCell = el('td');
  statusCell.append(badge(job.status));
  const typeCell = el('td', job.jobType, 'type');
  // Why a failed job failed, without opening it: its latest error message (cut by the server).
  if (job.status === 'failed' && job.lastError) typeCell.append(el('div', job.lastError, 'last-error muted'));
  row.append(
    idCell,
    typeCell,
    statusCell,
    el('td', `${job.attempts} / ${job.maxAttempts}`, 'num wide-only'),
    el('td', job.priority, 'num wide-only'),
    runAtCell(job),
    el('td', fmtDate(job.createdAt), 'wide-only'),
    el('td', fmtDate(job.updatedAt), 'muted wide-only'),
  );
  return row;
}

// Detail view

const PROPERTIES: [label: string, read: (j: JobJson) => TextValue][] = [
  ['ID', (j) => j.id],
  ['Type', (j) => j.jobType],
  ['Status', (j) => j.status],
  ['Attempts', (j) => `${j.attempts} of ${j.maxAttempts}`],
  ['Priority', (j) => j.priority],
  ['Created', (j) => fmtDate(j.createdAt)],
  ['Updated', (j) => fmtDate(j.updatedAt)],
  ['Run at', (j) => fmtDate(j.runAt)],
  ['Started', (j) => fmtDate(j.startedAt)],
  ['Completed', (j) => fmtDate(j.completedAt)],
  ['Next attempt', (j) => fmtDate(j.nextAttemptAt)],
  // Only a processing job is locked; a job stored before locks were cleared on leaving
  // processing may still carry its last one.
  ['Locked by', (j) => (j.status === 'processing' ? j.lockedBy : null)],
  ['Locked at', (j) => (j.status === 'processing' ? fmtDate(j.lockedAt) : null)],
  ['Failure reason', (j) => j.failureReason],
  ['Pending reason', (j) => j.pendingReason],
  ['Timeout', (j) => (j.timeoutMs == null ? null : `${j.timeoutMs} ms${j.forceKillOnTimeout ? ', forced' : ''}`)],
  ['Tags', (j) => (j.tags.length ? j.tags.join(', ') : null)],
  ['Idempotency key', (j) => j.idempotencyKey],
  ['Group', (j) => (j.group ? j.group.id : null)],
  ['Depends on jobs', (j) => (j.dependsOnJobIds ? j.dependsOnJobIds.map((id) => `#${id}`).join(', ') : null)],
  ['Depends on tags', (j) => (j.dependsOnTags ? j.dependsOnTags.join(', ') : null)],
  ['Retry delay', (j) => (j.retryDelay == null ? null : `${j.retryDelay} s`)],
  ['Retry backoff', (j) => (j.retryBackoff == null ? null : j.retryBackoff ? 'exponential' : 'fixed')],
  ['Retry delay cap', (j) => (j.retryDelayMax == null ? null : `${j.retryDelayMax} s`)],
  ['Dead-letter type', (j) => j.deadLetterJobType],
  ['Dead-letter job', (j) => (j.deadLetterJobId == null ? null : `#${j.deadLetterJobId}`)],
  ['Dead-lettered', (j) => fmtDate(j.deadLetteredAt)],
  ['Waits until', (j) => fmtDate(j.waitUntil)],
  ['Waits for token', (j) => j.waitTokenId],
  ['Last retried', (j) => fmtDate(j.lastRetriedAt)],
  ['Last failed', (j) => fmtDate(j.lastFailedAt)],
  ['Last cancelled', (j) => fmtDate(j.lastCancelledAt)],
];

function setPre(id: string, value: unknown, emptyText: string): void {
  const pre = $(id);
  const empty = value === null || value === undefined || (typeof value === 'object' && Object.keys(value).length === 0);
  pre.textContent = empty ? emptyText : JSON.stringify(value, null, 2);
  pre.classList.toggle('muted', empty);
}

async function loadDetail(id: number, gen: number): Promise<void> {
  const [jobBody, eventsBody] = await Promise.all([
    request<{ job: JobJson }>('GET', `/jobs/${id}`),
    request<{ events: Json<JobEvent>[] }>('GET', `/jobs/${id}/events`),
  ]);
  if (gen !== generation) return;
  const job = jobBody.job;
  shownJobId = id;
  $('back', HTMLAnchorElement).href = listHash;
  $('detail-title').textContent = `Job #${id} \u00b7 ${job.jobType}`;
  badge(job.status, $('detail-status'));
  $('cancel').hidden = readOnly || !CANCELLABLE_STATUSES.includes(job.status);
  $('retry').hidden = readOnly || !RETRYABLE_STATUSES.includes(job.status);
  showDetailActions(job);

  const props: HTMLElement[] = [];
  for (const [label, read] of PROPERTIES) {
    const value = read(job);
    if (value === null || value === undefined || value === '') continue;
    const item = el('div');
    item.append(el('dt', label), el('dd', value));
    props.push(item);
  }
  $('props').replaceChildren(...props);

  const progress = $('progress');
  progress.hidden = job.progress == null;
  if (job.progress != null) {
    const bar = el('progress');
    bar.max = 100;
    bar.value = job.progress;
    progress.replaceChildren(el('span', `Progress ${job.progress}%`, 'when'), bar);
  }

  setPre('payload', job.payload, 'No payload');
  setPre('output', job.output, 'No output');
  setPre('steps', job.stepData, 'No completed steps');

  const errors = job.errorHistory.map(errorItem);
  $('errors').replaceChildren(...(errors.length ? errors : [el('li', 'No errors', 'muted')]));

  const events = eventsBody.events.map((event) => {
    const item = el('li');
    item.append(el('span', event.eventType, 'event'), el('span', fmtDate(event.createdAt), 'when'));
    if (event.metadata !== null && event.metadata !== undefined)
      item.append(el('code', JSON.stringify(event.metadata), 'meta'));
    return item;
  });
  $('events').replaceChildren(...(events.length ? events : [el('li', 'No events', 'muted')]));
}

// Rendering and refresh

async function render(): Promise<void> {
  const state = readHash();
  const gen = ++generation;
  const cron = isCronView();
  if (state.job === null && !cron) listHash = location.hash || '#';
  $('list-view').hidden = cron || state.job !== null;
  $('detail-view').hidden = cron || state.job === null;
  showCronView(cron);
  busy = true;
  try {
    if (cron) await renderCron(() => gen === generation, render);
    else if (state.job === null) {
      const current = () => gen === generation;
      const href = (status: JobStatus | '', type: string) =>
        hashFor({ job: null, status, type, tag: '', q: '', after: null, page: 0 });
      await Promise.all([loadList(state, gen), loadOverview(state, current, href)]);
    } else await loadDetail(state.job, gen);
    if (gen === generation && noticeState.loadFailed) {
      noticeState.loadFailed = false;
      $('notice').hidden = true;
    }
  } catch (error) {
    if (gen !== generation) return;
    notify(`Could not load: ${error instanceof Error ? error.message : String(error)}`, true);
    noticeState.loadFailed = true;
  } finally {
    if (gen === generation) busy = false;
  }
}

function setAutoRefresh(on: boolean): void {
  clearInterval(timer);
  timer = on
    ? setInterval(() => {
        if (!busy) void render();
      }, REFRESH_MS)
    : undefined;
  try {
    localStorage.setItem('queuedev.autoRefresh', on ? '1' : '0');
  } catch {
    // Storage may be disabled; auto-refresh then lasts for this page only.
  }
}

// Wiring

for (const tab of document.querySelectorAll<HTMLElement>('.tab')) {
  tab.addEventListener('click', () => {
    const status = tab.dataset.status ?? '';
    go(hashFor({ ...readHash(), status: isStatus(status) ? status : '', after: null, page: 0 }));
  });
}
initFind(
  (find) => go(hashFor({ ...readHash(), ...find, after: null, page: 0 })),
  (id) => go(`#job=${id}`),
);
/** The list's filter of a state, without its page: pages of one list share it. */
const filterOf = (state: ListState) => hashFor({ ...state, after: null, page: 0 });
$('prev').addEventListener('click', () => {
  const s = readHash();
  const back = newer.shift();
  // The page "Older" left, when it is of this list and before this page (the back button or a
  // link may have moved elsewhere meanwhile); otherwise the newest jobs.
  const previous = back === undefined ? null : readHash(back);
  if (back !== undefined && previous !== null && filterOf(previous) === filterOf(s) && previous.page < s.page) {
    go(back);
  } else {
    newer = [];
    go(filterOf(s));
  }
});
$('next').addEventListener('click', () => {
  const s = readHash();
  if (nextAfter === null) return;
  newer.unshift(hashFor(s));
  go(hashFor({ ...s, after: nextAfter, page: s.page + 1 }));
});

/** The job row an event happened in, unless it happened on the row's link (which navigates itself). */
function rowOf(event: Event): HTMLTableRowElement | null {
  const target = event.target instanceof Element ? event.target : null;
  return target?.closest('a') ? null : (target?.closest('tr') ?? null);
}
$('jobs').addEventListener('click', (event) => {
  const row = rowOf(event);
  if (row) go(`#job=${row.dataset.id}`);
});
$('jobs').addEventListener('keydown', (event) => {
  const row = event.target instanceof Element ? event.target.closest('tr') : null;
  if (row && event.key === 'Enter') go(`#job=${row.dataset.id}`);
});
$('refresh').addEventListener('click', () => void render());

const processButton = $('process', HTMLButtonElement);
processButton.hidden = readOnly;
processButton.addEventListener(
  'click',
  () =>
    void act(
      processButton,
      async () => {
        const body = await request<{ processed: number }>('POST', '/process');
        return `Processed ${body.processed}${body.processed === 1 ? ' job.' : ' jobs.'}`;
      },
      render,
    ),
);
const cancelButton = $('cancel', HTMLButtonElement);
cancelButton.addEventListener(
  'click',
  () =>
    void act(
      cancelButton,
      async () => {
        const id = shownJobId;
        if (!(await confirmAction(`Cancel job #${id}? Its pending dependents are cancelled too.`, 'Cancel job')))
          return null;
        await request('POST', `/jobs/${id}/cancel`);
        return `Job #${id} cancelled.`;
      },
      render,
    ),
);
const retryButton = $('retry', HTMLButtonElement);
retryButton.addEventListener(
  'click',
  () =>
    void act(
      retryButton,
      async () => {
        const id = shownJobId;
        await request('POST', `/jobs/${id}/retry`);
        return `Job #${id} will be retried.`;
      },
      render,
    ),
);

initActions({ listFilter: () => listFilter(readHash()), render, backToList: () => go(listHash) });

const auto = $('auto-refresh', HTMLInputElement);
auto.addEventListener('change', () => setAutoRefresh(auto.checked));
try {
  auto.checked = localStorage.getItem('queuedev.autoRefresh') === '1';
} catch {
  auto.checked = false;
}
if (auto.checked) setAutoRefresh(true);
window.addEventListener('hashchange', () => void render());
void render();
