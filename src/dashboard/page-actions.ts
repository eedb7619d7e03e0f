/**
 * The markup and style of the page's job actions beyond a single cancel or retry (the script is
 * browser/actions.ts): the bulk buttons of the list, and the Delete button and the edit form of
 * a job's detail. Static markup, no job data; every element starts hidden and the script shows
 * what applies (nothing on a read-only dashboard).
 */

/** The list's bulk actions, for the jobs of the current filter. */
export const BULK_ACTIONS_HTML = `<div class="actions bulk" id="bulk-actions" hidden>
      <button type="button" id="bulk-retry" hidden>Retry all failed</button>
      <button type="button" id="bulk-cancel" hidden>Cancel all pending</button>
    </div>`;

/** The detail view's Delete button, beside Cancel and Retry. */
export const DELETE_BUTTON_HTML = `<button type="button" id="delete" class="danger" hidden>Delete job</button>`;

/** The edit form of a pending job: payload (JSON), priority and run time. */
export const EDIT_FORM_HTML = `<section id="edit" class="card span" hidden>
        <h3>Edit pending job</h3>
        <form id="edit-form" class="edit-form" novalidate>
          <label for="edit-payload">Payload (JSON)</label>
          <textarea id="edit-payload" rows="8" spellcheck="false" autocomplete="off"></textarea>
          <div class="edit-row">
            <label>Priority <input type="number" id="edit-priority" step="1" inputmode="numeric"></label>
            <label>Run at <input type="datetime-local" id="edit-run-at" step="1"></label>
          </div>
          <p id="edit-error" class="edit-error" role="alert" hidden></p>
          <div class="actions"><button type="submit" id="edit-save" class="primary">Save changes</button></div>
        </form>
      </section>`;

export const ACTION_STYLES = `
.bulk { margin-bottom: 0.9rem; }
.edit-form { display: grid; gap: 0.6rem; }
.edit-form label { font-size: 0.85rem; color: var(--muted); }
.edit-row { display: flex; flex-wrap: wrap; gap: 1rem; }
.edit-row label { display: grid; gap: 0.25rem; }
.edit-form textarea, .edit-form input {
  font: 0.85rem/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; color: inherit; width: 100%;
  padding: 0.5rem; border: 1px solid var(--line); border-radius: 6px; background: var(--bg); resize: vertical;
}
.edit-form [aria-invalid="true"] { border-color: var(--danger); }
.edit-error { margin: 0; color: var(--danger); overflow-wrap: anywhere; }
`;
