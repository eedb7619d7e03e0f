/**
 * The cron view (`#view=cron`): every schedule with its expression, job type, status, next run
 * and last job (linked to its detail), and the actions pause, resume, trigger now (after a
 * confirmation) and edit the expression. app.ts shows the view and calls renderCron; the view
 * builds its own table inside the page's `#cron-view` section.
 */
import type { CronSummary } from '../cron-summary.js';
import {
  $,
  act,
  badge,
  changedInPlace,
  confirmAction,
  el,
  fmtDate,
  NONE,
  readOnly,
  request,
  showRows,
  type Json,
} from './dom.js';

type Schedule = Json<CronSummary>;

/** The schedule whose expression is being edited: re-renders (auto-refresh) wait until it is done. */
let editing: number | null = null;

/** True when the hash asks for the cron view. */
export function isCronView(hash: string = location.hash): boolean {
  return new URLSearchParams(hash.slice(1)).get('view') === 'cron';
}

/** Shows or hides the cron view, and marks its link in the header's navigation as current. */
export function showCronView(on: boolean): void {
  $('cron-view').hidden = !on;
  for (const link of document.querySelectorAll<HTMLElement>('nav.views a')) {
    if ((link.id === 'nav-cron') === on) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
}

/**
 * Loads the schedules and draws them, unless an edit is open or `isCurrent()` turned false
 * meanwhile (the operator navigated on). `rerender` redraws the page after an action. A row whose
 * schedule did not change is kept as it is (showRows).
 */
export async function renderCron(isCurrent: () => boolean, rerender: () => Promise<void>): Promise<void> {
  if (editing !== null && document.getElementById(`cron-edit-${editing}`)) return;
  editing = null;
  const body = await request<{ schedules: Schedule[]; hasMore: boolean }>('GET', '/cron');
  if (!isCurrent()) return;
  const { rows, empty, more } = cronTable();
  showRows(
    rows,
    body.schedules,
    (s) => `${nextRunText(s)} ${JSON.stringify(s)}`,
    (s) => scheduleRow(s, rerender),
  );
  empty.hidden = body.schedules.length > 0;
  more.hidden = !body.hasMore;
  more.textContent = `Showing the first ${body.schedules.length} schedules.`;
}

/** The view's title and table, built on first use and kept across renders. */
function cronTable(): { rows: HTMLElement; empty: HTMLElement; more: HTMLElement } {
  if (!document.getElementById('cron-schedules')) {
    const head = el('tr');
    for (const title of ['Name', 'Expression', 'Job type', 'Status', 'Next run', 'Last job'])
      head.append(el('th', title));
    if (!readOnly) head.append(el('th', 'Actions'));
    const thead = el('thead');
    thead.append(head);
    const tbody = el('tbody');
    tbody.id = 'cron-schedules';
    const table = el('table');
    table.append(thead, tbody);
    const empty = el('p', 'No cron schedules.', 'empty');
    empty.id = 'cron-empty';
    const wrap = el('div', null, 'table-wrap');
    wrap.append(table, empty);
    const more = el('p', null, 'muted');
    more.id = 'cron-more';
    $('cron-view').replaceChildren(el('h2', 'Cron schedules', 'view-title'), wrap, more);
  }
  return { rows: $('cron-schedules'), empty: $('cron-empty'), more: $('cron-more') };
}

function nextRunText(s: Schedule): string {
  if (s.nextRunAt === null) return 'paused';
  const when = fmtDate(s.nextRunAt) ?? NONE;
  // Past means due: the next processor check enqueues it.
  return new Date(s.nextRunAt).getTime() <= Date.now() ? `${when} (due)` : when;
}

function lastJobCell(s: Schedule): HTMLTableCellElement {
  const cell = el('td', s.lastJob ? null : NONE, s.lastJob ? 'last-job' : 'muted');
  if (s.lastJob) {
    const link = el('a', `#${s.lastJob.id}`);
    link.href = `#job=${s.lastJob.id}`;
    cell.append(link, ' ', badge(s.lastJob.status ?? 'removed'));
    if (s.lastEnqueuedAt) cell.append(el('span', fmtDate(s.lastEnqueuedAt), 'when'));
  }
  return cell;
}

function scheduleRow(s: Schedule, rerender: () => Promise<void>): HTMLTableRowElement {
  const row = el('tr');
  row.dataset.id = String(s.id);
  const expression = el('td', null, 'expression');
  expression.append(el('code', s.cronExpression));
  if (s.timezone !== 'UTC') expression.append(el('span', s.timezone, 'when'));
  const status = el('td');
  const statusBadge = badge(s.status);
  statusBadge.classList.add(`cron-${s.status}`);
  status.append(statusBadge);
  row.append(
    el('td', s.scheduleName, 'name'),
    expression,
    el('td', s.jobType, 'type'),
    status,
    el('td', nextRunText(s), s.nextRunAt === null ? 'next-run muted' : 'next-run'),
    lastJobCell(s),
  );
  if (!readOnly) row.append(actionsCell(s, expression, rerender));
  return row;
}

function button(label: string, action: string, className?: string): HTMLButtonElement {
  const b = el('button', label, className);
  b.type = 'button';
  b.dataset.action = action;
  return b;
}

function actionsCell(s: Schedule, expression: HTMLTableCellElement, rerender: () => Promise<void>) {
  const cell = el('td');
  const buttons = el('div', null, 'actions');
  const toggle = s.status === 'active' ? button('Pause', 'pause') : button('Resume', 'resume');
  toggle.addEventListener('click', () => {
    const action = s.status === 'active' ? 'pause' : 'resume';
    void act(
      toggle,
      async () => {
        await request('POST', `/cron/${s.id}/${action}`);
        return `Schedule ${s.scheduleName} ${action === 'pause' ? 'paused' : 'resumed'}.`;
      },
      rerender,
    );
  });
  const trigger = button('Trigger now', 'trigger');
  trigger.addEventListener('click', () => {
    void act(
      trigger,
      async () => {
        const question = `Enqueue a ${s.jobType} job of schedule ${s.scheduleName} now? Its regular runs stay as scheduled.`;
        if (!(await confirmAction(question, 'Trigger now'))) return null;
        const answer = await request<{ jobId: number }>('POST', `/cron/${s.id}/trigger`);
        return `Schedule ${s.scheduleName} enqueued job #${answer.jobId}.`;
      },
      rerender,
    );
  });
  const edit = button('Edit', 'edit');
  edit.addEventListener('click', () => openEditor(s, expression, rerender));
  buttons.append(toggle, trigger, edit);
  cell.append(buttons);
  return cell;
}

/** Replaces the expression cell with a form; saving posts the edit, Escape or Cancel closes it. */
function openEditor(s: Schedule, cell: HTMLTableCellElement, rerender: () => Promise<void>): void {
  editing = s.id;
  // Closed without a change, the schedule's row is built again rather than kept with the form.
  const row = cell.closest('tr');
  if (row) changedInPlace(row);
  const form = el('form', null, 'cron-edit');
  form.id = `cron-edit-${s.id}`;
  const input = el('input');
  input.name = 'cronExpression';
  input.value = s.cronExpression;
  input.required = true;
  input.spellcheck = false;
  input.autocomplete = 'off';
  input.setAttribute('aria-label', `Cron expression of ${s.scheduleName}`);
  const save = button('Save', 'save', 'primary');
  save.type = 'submit';
  const cancel = button('Cancel', 'cancel-edit');
  const close = () => {
    editing = null;
    void rerender();
  };
  cancel.addEventListener('click', close);
  input.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') close();
  });
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void act(
      save,
      async () => {
        const answer = await request<{ nextRunAt: string | null }>('POST', `/cron/${s.id}/edit`, {
          cronExpression: input.value.trim(),
        });
        editing = null;
        const next = answer.nextRunAt === null ? 'paused' : `next run ${fmtDate(answer.nextRunAt) ?? NONE}`;
        return `Schedule ${s.scheduleName} now runs at ${input.value.trim()} (${next}).`;
      },
      // A refused expression keeps the form open with the server's message in the notice.
      () => (editing === null ? rerender() : Promise.resolve()),
    );
  });
  form.append(input, save, cancel);
  cell.replaceChildren(form);
  input.focus();
  input.select();
}
