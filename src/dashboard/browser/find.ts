/**
 * Finding jobs in the list view: the filter inputs above the list (job id, job type prefix, tag,
 * payload text), their state in the URL hash (`type`, `tag`, `q`), the list request's parameters
 * they give (`jobTypePrefix`, `tag`, `q`: see parseJobFilter in ../api.ts), and the run-at cell
 * that says why a pending job waits.
 */
import type { JobHoldReason } from '../../types.js';
import type { JobSummary } from '../summary.js';
import { $, el, fmtDate, request, type Json } from './dom.js';

/** The list's find filters, as the hash holds them. */
export interface FindState {
  /** Job type prefix. */
  type: string;
  tag: string;
  /** Text searched in the payloads. */
  q: string;
}

/** Hash key → input element id. */
const INPUTS = { type: 'job-type', tag: 'find-tag', q: 'find-q' } as const;
const KEYS = Object.keys(INPUTS) as (keyof FindState)[];

/** Wait after the last keystroke before the list reloads. */
const TYPING_MS = 350;

/** The job type suggestions are read again on focus when older than this. */
const TYPES_MAX_AGE_MS = 30_000;

export function readFind(p: URLSearchParams): FindState {
  return { type: p.get('type') ?? '', tag: p.get('tag') ?? '', q: p.get('q') ?? '' };
}

/** Writes the non-empty filters to the hash parameters `p`. */
export function writeFind(state: FindState, p: URLSearchParams): void {
  for (const key of KEYS) if (state[key]) p.set(key, state[key]);
}

/** Adds the list request's parameters for `state` to `p`. */
export function findParams(state: FindState, p: URLSearchParams): void {
  if (state.type) p.set('jobTypePrefix', state.type);
  if (state.tag) p.set('tag', state.tag);
  if (state.q) p.set('q', state.q);
}

/** Set while typed filters wait for TYPING_MS before they apply. */
let typing: ReturnType<typeof setTimeout> | undefined;

/**
 * Shows `state` in the inputs, except in the one being typed in, and not at all while typed
 * filters wait to apply: a list loaded meanwhile (auto-refresh, a tab) must not undo them.
 */
export function showFind(state: FindState): void {
  if (typing !== undefined) return;
  for (const key of KEYS) {
    const input = $(INPUTS[key], HTMLInputElement);
    if (document.activeElement !== input) input.value = state[key];
  }
}

/**
 * Wires the inputs: typing in a filter calls `apply` with the new filters a moment after the
 * last keystroke; Enter in the job id input calls `open` with a valid id.
 */
export function initFind(apply: (state: FindState) => void, open: (id: number) => void): void {
  const read = (): FindState => {
    const state = { type: '', tag: '', q: '' };
    for (const key of KEYS) state[key] = $(INPUTS[key], HTMLInputElement).value.trim();
    return state;
  };
  for (const key of KEYS) {
    $(INPUTS[key], HTMLInputElement).addEventListener('input', () => {
      clearTimeout(typing);
      typing = setTimeout(() => {
        typing = undefined;
        apply(read());
      }, TYPING_MS);
    });
  }
  let typesReadAt = -Infinity;
  $(INPUTS.type, HTMLInputElement).addEventListener('focus', () => {
    if (performance.now() - typesReadAt < TYPES_MAX_AGE_MS) return;
    typesReadAt = performance.now();
    void suggestJobTypes();
  });
  const idInput = $('find-id', HTMLInputElement);
  idInput.addEventListener('keydown', (event) => {
    if (event.key !== 'Enter') return;
    const text = idInput.value.trim().replace(/^#/, '');
    const id = Number(text);
    const valid = /^\d{1,16}$/.test(text) && Number.isSafeInteger(id) && id > 0;
    idInput.setCustomValidity(valid ? '' : 'A job id is a positive whole number');
    idInput.reportValidity();
    if (!valid) return;
    idInput.value = '';
    open(id);
  });
  idInput.addEventListener('input', () => idInput.setCustomValidity(''));
}

/** Fills the type input's suggestions with the queue's job types; a failure leaves them as they were. */
async function suggestJobTypes(): Promise<void> {
  try {
    const { jobTypes } = await request<{ jobTypes: string[] }>('GET', '/job-types');
    $('job-types').replaceChildren(
      ...jobTypes.map((type) => {
        const option = el('option');
        option.value = type;
        return option;
      }),
    );
  } catch {
    // Suggestions only: the filter works without them.
  }
}

const HOLD_LABELS: Record<JobHoldReason, string> = {
  scheduled: 'scheduled',
  dependencies: 'waiting on dependencies',
  group: 'group full',
  due: 'due',
};

/**
 * The run-at cell: when the job runs next and why not yet. A pending job shows its runAt and its
 * hold reason; a failed job due for a retry shows the retry's time, a waiting job its wake-up
 * time; other jobs show their runAt, muted.
 */
export function runAtCell(job: Json<JobSummary>): HTMLTableCellElement {
  const cell = el('td', null, 'run-at');
  const [when, note] =
    job.status === 'failed' && job.nextAttemptAt
      ? [job.nextAttemptAt, 'retry']
      : job.status === 'waiting' && job.waitUntil
        ? [job.waitUntil, 'wakes']
        : [job.runAt, job.holdReason ? HOLD_LABELS[job.holdReason] : null];
  cell.append(el('span', fmtDate(when), note ? undefined : 'muted'));
  if (note) cell.append(el('span', note, `badge hold ${job.holdReason ?? note}`));
  return cell;
}
