/**
 * The dashboard page: static markup with its style and script inline, so it loads nothing from
 * elsewhere and runs under a CSP that allows only this response's nonce. The markup holds no
 * job data; the script fetches it and writes it with textContent only.
 */
import { ACTION_STYLES, BULK_ACTIONS_HTML, DELETE_BUTTON_HTML, EDIT_FORM_HTML } from './page-actions.js';
import { JOB_STATUSES } from './shared.js';
import { escapeHtml } from './http.js';
import { PAGE_SCRIPT } from './page-script.generated.js';
import { OVERVIEW_STYLES } from './overview-styles.js';
import { PAGE_STYLES } from './page-styles.js';
import { CRON_STYLES } from './page-styles-cron.js';

const TABS = [
  { status: '', label: 'All' },
  ...JOB_STATUSES.map((s) => ({ status: s, label: s[0]!.toUpperCase() + s.slice(1) })),
];

const DETAIL_SECTIONS = [
  ['Payload', '<pre id="payload"></pre>'],
  ['Output', '<pre id="output"></pre>'],
  ['Error history', '<ol id="errors" class="plain"></ol>'],
  ['Step data', '<pre id="steps"></pre>'],
] as const;

export function renderPage({
  basePath,
  nonce,
  readOnly,
}: {
  basePath: string;
  nonce: string;
  readOnly: boolean;
}): string {
  const n = escapeHtml(nonce);
  const tabs = TABS.map(
    (t) =>
      `<button type="button" role="tab" class="tab" data-status="${t.status}" aria-selected="false">${t.label}</button>`,
  ).join('');
  const sections = DETAIL_SECTIONS.map(
    ([title, body]) => `<section class="card"><h3>${title}</h3>${body}</section>`,
  ).join('');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Jobs · queuedev</title>
<link rel="icon" href="data:,">
<style nonce="${n}">${PAGE_STYLES}${OVERVIEW_STYLES}${CRON_STYLES}${ACTION_STYLES}</style>
</head>
<body data-base-path="${escapeHtml(basePath)}" data-read-only="${readOnly}">
<header class="top">
  <h1>Jobs</h1>
  <nav class="views" aria-label="Views"><a href="#" id="nav-jobs">Jobs</a><a href="#view=cron" id="nav-cron">Cron</a></nav>
  <div class="actions">
    <label class="toggle"><input type="checkbox" id="auto-refresh"> Auto-refresh</label>
    <button type="button" id="refresh">Refresh</button>
    <button type="button" id="process" class="primary">Process batch</button>
  </div>
</header>
<main>
  <p id="notice" role="status" aria-live="polite" hidden></p>
  <section id="list-view" hidden>
    <section id="overview" class="overview" aria-label="Overview"></section>
    <div class="tabs" role="tablist" aria-label="Job status">${tabs}</div>
    <div class="filters">
      <input type="search" id="find-id" class="narrow" placeholder="Job ID" aria-label="Open job by ID" inputmode="numeric" autocomplete="off">
      <input type="search" id="job-type" placeholder="Job type starts with" aria-label="Filter by job type prefix" autocomplete="off" maxlength="255" list="job-types">
      <datalist id="job-types"></datalist>
      <input type="search" id="find-tag" placeholder="Tag" aria-label="Filter by tag" autocomplete="off" maxlength="255">
      <input type="search" id="find-q" placeholder="Payload contains" aria-label="Search payloads" autocomplete="off" maxlength="200">
    </div>
    ${BULK_ACTIONS_HTML}
    <div class="table-wrap">
      <table>
        <thead><tr><th>ID</th><th>Type</th><th>Status</th><th class="num wide-only">Attempts</th><th class="num wide-only">Priority</th><th>Run at</th><th class="wide-only">Created</th><th class="wide-only">Updated</th></tr></thead>
        <tbody id="jobs"></tbody>
      </table>
      <p id="empty" class="empty" hidden>No jobs here.</p>
    </div>
    <nav class="pager" aria-label="Pages">
      <button type="button" id="prev">&larr; Newer</button>
      <span id="page-label"></span>
      <button type="button" id="next">Older &rarr;</button>
    </nav>
  </section>
  <section id="detail-view" hidden>
    <a href="#" id="back" class="back">&larr; All jobs</a>
    <div class="detail-head">
      <h2 id="detail-title"></h2>
      <span id="detail-status" class="badge"></span>
      <div class="actions">
        <button type="button" id="cancel" hidden>Cancel job</button>
        <button type="button" id="retry" class="primary" hidden>Retry job</button>
        ${DELETE_BUTTON_HTML}
      </div>
    </div>
    <div class="grid">
      <section class="card span"><h3>Properties</h3><div id="progress" class="progress"></div><dl id="props"></dl></section>
      ${EDIT_FORM_HTML}
      ${sections}
      <section class="card span"><h3>Events</h3><ol id="events" class="timeline"></ol></section>
    </div>
  </section>
  <section id="cron-view" hidden></section>
</main>
<dialog id="confirm" aria-labelledby="confirm-text">
  <form method="dialog">
    <p id="confirm-text"></p>
    <div class="actions">
      <button type="submit" value="cancel" autofocus>Keep</button>
      <button type="submit" value="ok" id="confirm-ok" class="danger"></button>
    </div>
  </form>
</dialog>
<script nonce="${n}">${PAGE_SCRIPT}</script>
</body>
</html>
`;
}
