/**
 * The page's job actions beyond a single cancel or retry (markup in ../page-actions.ts): "Retry
 * all failed" and "Cancel all pending" for the jobs of the list's current filter, each confirmed
 * with the number of jobs it will touch; Delete on a finished job, confirmed; and the edit form
 * of a pending job (payload, priority, run time), checked here before the server checks it
 * again. A read-only dashboard shows none of them.
 */
import type { JobRecord, JobStatus } from '../../types.js';
import { $, act, confirmAction, countText, numberFormat, readOnly, request, type Json } from './dom.js';

type JobJson = Json<JobRecord>;

/** What the list view hands over: its current filter, and how to redraw or leave a view. */
export interface ActionHooks {
  /** The list's filter as the API's query parameters (`status`, `jobType`, ...), no page. */
  listFilter: () => URLSearchParams;
  /** Redraws the current view. */
  render: () => Promise<void>;
  /** Goes back from a job's detail to the list it was opened from (which then redraws). */
  backToList: () => void;
}

const jobs = (n: number) => (n === 1 ? 'job' : 'jobs');

let hooks: ActionHooks;
let shown: JobJson | null = null;

// List: bulk actions

/**
 * Shows the bulk buttons that apply to the list's status tab (`''`: all statuses); none while the
 * list searches payloads, a search bounded to the newest jobs that cannot select them all.
 */
export function showListActions(status: JobStatus | '', searching: boolean): void {
  const retry = !readOnly && !searching && (status === '' || status === 'failed');
  const cancel = !readOnly && !searching && (status === '' || status === 'pending');
  $('bulk-retry').hidden = !retry;
  $('bulk-cancel').hidden = !cancel;
  $('bulk-actions').hidden = !retry && !cancel;
}

/** The list's filter narrowed to `status`, the only status a bulk action touches. */
function bulkParams(status: 'failed' | 'pending'): URLSearchParams {
  const params = hooks.listFilter();
  params.set('status', status);
  return params;
}

/**
 * The filter in words for the confirmation: " of type email", " of a type starting with
 * email.", " tagged tenant:7", joined in the order the list applies them.
 */
function describeFilter(params: URLSearchParams): string {
  const type = params.get('jobType');
  const prefix = params.get('jobTypePrefix');
  const tags = params.getAll('tag');
  return [
    type ? ` of type ${type}` : '',
    prefix ? ` of a type starting with ${prefix}` : '',
    tags.length > 0 ? ` tagged ${tags.join(', ')}` : '',
  ].join('');
}

interface Bulk {
  status: 'failed' | 'pending';
  path: string;
  question(count: string, plural: string, filter: string): string;
  label: string;
  done(count: number): string;
}

const BULK: Record<'retry' | 'cancel', Bulk> = {
  retry: {
    status: 'failed',
    path: '/jobs/retry-failed',
    question: (count, plural, filter) => `Retry ${count} failed ${plural}${filter}?`,
    label: 'Retry all',
    done: (n) => `Retried ${numberFormat.format(n)} ${jobs(n)}.`,
  },
  cancel: {
    status: 'pending',
    path: '/jobs/cancel-pending',
    question: (count, plural, filter) =>
      `Cancel ${count} pending ${plural}${filter}? Their pending dependents are cancelled too.`,
    label: 'Cancel all',
    done: (n) => `Cancelled ${numberFormat.format(n)} ${jobs(n)}.`,
  },
};

/** Counts the jobs, asks with that number, then acts; null (no notice) when the operator keeps them. */
async function runBulk(bulk: Bulk): Promise<string | null> {
  const params = bulkParams(bulk.status);
  const query = params.toString();
  const { count, capped } = await request<{ count: number; capped: boolean }>('GET', `/jobs/count?${query}`);
  if (count === 0) return `No ${bulk.status} jobs here.`;
  const shownCount = countText(count, capped);
  const plural = capped ? 'jobs' : jobs(count);
  if (!(await confirmAction(bulk.question(shownCount, plural, describeFilter(params)), bulk.label))) return null;
  const body = await request<{ count: number }>('POST', `${bulk.path}?${query}`);
  return bulk.done(body.count);
}

// Detail: delete and edit

/** Finished: completed, cancelled, or failed with no automatic retry left. */
function isFinished(job: JobJson): boolean {
  return (
    job.status === 'completed' || job.status === 'cancelled' || (job.status === 'failed' && job.nextAttemptAt == null)
  );
}

/** The form's state: which version of which job it was filled from, and unsaved typing. */
const form = { filledFrom: '', dirty: false };

/** Shows Delete and the edit form as they apply to `job`; keeps what the operator is typing. */
export function showDetailActions(job: JobJson): void {
  const sameJob = shown?.id === job.id;
  shown = job;
  $('delete').hidden = readOnly || !isFinished(job);
  const editable = !readOnly && job.status === 'pending';
  $('edit').hidden = !editable;
  if (!sameJob) form.dirty = false;
  const version = `${job.id}@${job.updatedAt}`;
  // An auto-refresh redraws the view every few seconds: the form is refilled only when the job
  // changed and nothing typed would be lost.
  if (editable && version !== form.filledFrom && !form.dirty) fillForm(job, version);
}

function fillForm(job: JobJson, version: string): void {
  $('edit-payload', HTMLTextAreaElement).value = JSON.stringify(job.payload ?? null, null, 2);
  $('edit-priority', HTMLInputElement).value = String(job.priority);
  const runAt = $('edit-run-at', HTMLInputElement);
  runAt.value = toLocalInput(job.runAt);
  runAt.dataset.initial = runAt.value;
  showFormError(null);
  form.filledFrom = version;
}

/** An ISO time as a datetime-local value in the browser's time zone, to the second. */
function toLocalInput(iso: string): string {
  const d = new Date(iso);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}T${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
}

function showFormError(message: string | null, field?: HTMLElement): void {
  const error = $('edit-error');
  error.textContent = message ?? '';
  error.hidden = message === null;
  for (const id of ['edit-payload', 'edit-priority', 'edit-run-at']) $(id).removeAttribute('aria-invalid');
  if (field) {
    field.setAttribute('aria-invalid', 'true');
    field.focus();
  }
}

/** The fields that differ from the job as shown, checked; throws a message naming the field. */
function readEdit(job: JobJson): Record<string, unknown> {
  const payloadField = $('edit-payload', HTMLTextAreaElement);
  const priorityField = $('edit-priority', HTMLInputElement);
  const runAtField = $('edit-run-at', HTMLInputElement);
  const edit: Record<string, unknown> = {};
  let payload: unknown;
  try {
    payload = JSON.parse(payloadField.value);
  } catch (error) {
    throw new FieldError(
      `Payload is not valid JSON: ${error instanceof Error ? error.message : String(error)}`,
      payloadField,
    );
  }
  if (JSON.stringify(payload) !== JSON.stringify(job.payload ?? null)) edit.payload = payload;
  const priority = Number(priorityField.value);
  if (priorityField.value.trim() === '' || !Number.isInteger(priority)) {
    throw new FieldError('Priority must be a whole number.', priorityField);
  }
  if (priority !== job.priority) edit.priority = priority;
  if (runAtField.value !== runAtField.dataset.initial) {
    const runAt = new Date(runAtField.value);
    if (runAtField.value === '' || Number.isNaN(runAt.getTime())) {
      throw new FieldError('Run at must be a date and time.', runAtField);
    }
    edit.runAt = runAt.toISOString();
  }
  return edit;
}

class FieldError extends Error {
  constructor(
    message: string,
    readonly field: HTMLElement,
  ) {
    super(message);
  }
}

async function saveEdit(): Promise<string | null> {
  const job = shown;
  if (!job) return null;
  let edit: Record<string, unknown>;
  try {
    edit = readEdit(job);
  } catch (error) {
    if (!(error instanceof FieldError)) throw error;
    showFormError(error.message, error.field);
    return null;
  }
  showFormError(null);
  if (Object.keys(edit).length === 0) return 'Nothing to save: no field changed.';
  await request('POST', `/jobs/${job.id}/edit`, edit);
  form.dirty = false;
  form.filledFrom = '';
  return `Job #${job.id} saved.`;
}

async function deleteShown(): Promise<string | null> {
  const id = shown?.id;
  if (id === undefined) return null;
  if (!(await confirmAction(`Delete job #${id} and its event history? This cannot be undone.`, 'Delete job'))) {
    return null;
  }
  await request('POST', `/jobs/${id}/delete`);
  return `Job #${id} deleted.`;
}

/** Wires the buttons and the form once; `actionHooks` come from the page's views (app.ts). */
export function initActions(actionHooks: ActionHooks): void {
  hooks = actionHooks;
  for (const [id, bulk] of [
    ['bulk-retry', BULK.retry],
    ['bulk-cancel', BULK.cancel],
  ] as const) {
    const button = $(id, HTMLButtonElement);
    button.addEventListener('click', () => void act(button, () => runBulk(bulk), hooks.render));
  }
  const deleteButton = $('delete', HTMLButtonElement);
  let deleted = false;
  deleteButton.addEventListener(
    'click',
    () =>
      void act(
        deleteButton,
        async () => {
          const message = await deleteShown();
          deleted = message !== null;
          return message;
        },
        async () => {
          if (deleted) hooks.backToList();
          else await hooks.render();
        },
      ),
  );
  const editForm = $('edit-form', HTMLFormElement);
  editForm.addEventListener('input', () => {
    form.dirty = true;
  });
  const save = $('edit-save', HTMLButtonElement);
  editForm.addEventListener('submit', (event) => {
    event.preventDefault();
    void act(save, saveEdit, hooks.render);
  });
}
