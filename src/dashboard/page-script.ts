/**
 * The dashboard page's script, inlined under the CSP nonce. Plain browser JavaScript kept as a
 * string (String.raw, so its escapes reach the browser as written; it must not contain a
 * backtick or a dollar-brace).
 *
 * Every piece of job data is written with textContent or as a property (never innerHTML), so a
 * payload holding markup shows as text. State lives in the URL hash: `#status=failed&type=x&page=2`
 * for the list, `#job=12` for a job's detail, so the back button and reloads work.
 */
export const PAGE_SCRIPT = String.raw`
(() => {
  'use strict';
  const PAGE_SIZE = 25;
  const REFRESH_MS = 3000;
  const STATUSES = ['pending', 'processing', 'completed', 'failed', 'cancelled', 'waiting'];
  const CANCELLABLE = ['pending', 'waiting'];
  const RETRYABLE = ['failed', 'cancelled'];
  const NONE = '\u2014';
  const base = document.body.dataset.basePath;
  const api = (base === '/' ? '' : base) + '/api';
  const $ = (id) => document.getElementById(id);

  let generation = 0;
  let busy = false;
  let listHash = '#';
  let shownJobId = null;
  let timer = null;
  let noticeTimer = null;
  let loadFailed = false;

  function el(tag, text, className) {
    const node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = String(text);
    if (className) node.className = className;
    return node;
  }
  // Fills node (a new span by default) as a status badge.
  function badge(status, node) {
    const target = node || el('span');
    target.textContent = status;
    target.className = STATUSES.includes(status) ? 'badge ' + status : 'badge';
    return target;
  }
  const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
  function fmtDate(iso) {
    return iso ? dateFormat.format(new Date(iso)) : null;
  }
  function fmtJson(value) {
    return JSON.stringify(value, null, 2);
  }

  function notify(message, isError) {
    const notice = $('notice');
    notice.textContent = message;
    notice.className = isError ? 'error' : '';
    notice.hidden = false;
    loadFailed = false;
    clearTimeout(noticeTimer);
    if (!isError) noticeTimer = setTimeout(() => { notice.hidden = true; }, 4000);
  }

  async function request(method, path) {
    const response = await fetch(api + path, { method, headers: { Accept: 'application/json' }, cache: 'no-store' });
    let body = null;
    try { body = await response.json(); } catch { body = null; }
    if (!response.ok) throw new Error((body && body.error) || 'HTTP ' + response.status);
    return body;
  }

  function readHash() {
    const p = new URLSearchParams(location.hash.slice(1));
    const job = Number(p.get('job'));
    const page = Number.parseInt(p.get('page') || '1', 10);
    return {
      job: Number.isSafeInteger(job) && job > 0 ? job : null,
      status: STATUSES.includes(p.get('status')) ? p.get('status') : '',
      type: p.get('type') || '',
      page: Number.isSafeInteger(page) && page > 1 ? page - 1 : 0,
    };
  }
  function hashFor(state) {
    const p = new URLSearchParams();
    if (state.status) p.set('status', state.status);
    if (state.type) p.set('type', state.type);
    if (state.page > 0) p.set('page', String(state.page + 1));
    return '#' + p.toString();
  }
  function go(hash) {
    if ((location.hash || '#') === hash) render();
    else location.hash = hash;
  }

  // List view

  async function loadList(state, gen) {
    const p = new URLSearchParams({ limit: String(PAGE_SIZE), offset: String(state.page * PAGE_SIZE) });
    if (state.status) p.set('status', state.status);
    if (state.type) p.set('jobType', state.type);
    const body = await request('GET', '/jobs?' + p.toString());
    if (gen !== generation) return;
    for (const tab of document.querySelectorAll('.tab')) {
      tab.setAttribute('aria-selected', String(tab.dataset.status === state.status));
    }
    const filter = $('job-type');
    if (document.activeElement !== filter) filter.value = state.type;
    $('jobs').replaceChildren(...body.jobs.map(jobRow));
    $('empty').hidden = body.jobs.length > 0;
    $('prev').disabled = state.page === 0;
    $('next').disabled = !body.hasMore;
    $('page-label').textContent = 'Page ' + (state.page + 1);
  }

  function jobRow(job) {
    const id = Number(job.id);
    const row = el('tr');
    row.tabIndex = 0;
    row.dataset.id = String(id);
    const link = el('a', '#' + id);
    link.href = '#job=' + id;
    const idCell = el('td');
    idCell.append(link);
    const statusCell = el('td');
    statusCell.append(badge(job.status));
    row.append(
      idCell,
      el('td', job.jobType, 'type'),
      statusCell,
      el('td', job.attempts + ' / ' + job.maxAttempts, 'num wide-only'),
      el('td', job.priority, 'num wide-only'),
      el('td', fmtDate(job.createdAt), 'wide-only'),
      el('td', fmtDate(job.updatedAt), 'muted wide-only'),
    );
    return row;
  }

  // Detail view

  const PROPERTIES = [
    ['ID', (j) => j.id],
    ['Type', (j) => j.jobType],
    ['Status', (j) => j.status],
    ['Attempts', (j) => j.attempts + ' of ' + j.maxAttempts],
    ['Priority', (j) => j.priority],
    ['Created', (j) => fmtDate(j.createdAt)],
    ['Updated', (j) => fmtDate(j.updatedAt)],
    ['Run at', (j) => fmtDate(j.runAt)],
    ['Started', (j) => fmtDate(j.startedAt)],
    ['Completed', (j) => fmtDate(j.completedAt)],
    ['Next attempt', (j) => fmtDate(j.nextAttemptAt)],
    ['Locked by', (j) => j.lockedBy],
    ['Locked at', (j) => fmtDate(j.lockedAt)],
    ['Failure reason', (j) => j.failureReason],
    ['Pending reason', (j) => j.pendingReason],
    ['Timeout', (j) => (j.timeoutMs == null ? null : j.timeoutMs + ' ms' + (j.forceKillOnTimeout ? ', forced' : ''))],
    ['Tags', (j) => (j.tags && j.tags.length ? j.tags.join(', ') : null)],
    ['Idempotency key', (j) => j.idempotencyKey],
    ['Group', (j) => (j.group ? j.group.id : null)],
    ['Depends on jobs', (j) => (j.dependsOnJobIds ? j.dependsOnJobIds.map((id) => '#' + id).join(', ') : null)],
    ['Depends on tags', (j) => (j.dependsOnTags ? j.dependsOnTags.join(', ') : null)],
    ['Retry delay', (j) => (j.retryDelay == null ? null : j.retryDelay + ' s')],
    ['Retry backoff', (j) => (j.retryBackoff == null ? null : j.retryBackoff ? 'exponential' : 'fixed')],
    ['Retry delay cap', (j) => (j.retryDelayMax == null ? null : j.retryDelayMax + ' s')],
    ['Dead-letter type', (j) => j.deadLetterJobType],
    ['Dead-letter job', (j) => (j.deadLetterJobId == null ? null : '#' + j.deadLetterJobId)],
    ['Dead-lettered', (j) => fmtDate(j.deadLetteredAt)],
    ['Waits until', (j) => fmtDate(j.waitUntil)],
    ['Waits for token', (j) => j.waitTokenId],
    ['Last retried', (j) => fmtDate(j.lastRetriedAt)],
    ['Last failed', (j) => fmtDate(j.lastFailedAt)],
    ['Last cancelled', (j) => fmtDate(j.lastCancelledAt)],
  ];

  function setPre(id, value, emptyText) {
    const pre = $(id);
    const empty = value === null || value === undefined || (typeof value === 'object' && Object.keys(value).length === 0);
    pre.textContent = empty ? emptyText : fmtJson(value);
    pre.classList.toggle('muted', empty);
  }

  async function loadDetail(state, gen) {
    const id = state.job;
    const [jobBody, eventsBody] = await Promise.all([request('GET', '/jobs/' + id), request('GET', '/jobs/' + id + '/events')]);
    if (gen !== generation) return;
    const job = jobBody.job;
    shownJobId = id;
    $('back').href = listHash;
    $('detail-title').textContent = 'Job #' + id + ' \u00b7 ' + job.jobType;
    badge(job.status, $('detail-status'));
    $('cancel').hidden = !CANCELLABLE.includes(job.status);
    $('retry').hidden = !RETRYABLE.includes(job.status);

    const props = [];
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
      progress.replaceChildren(el('span', 'Progress ' + job.progress + '%', 'when'), bar);
    }

    setPre('payload', job.payload, 'No payload');
    setPre('output', job.output, 'No output');
    setPre('steps', job.stepData, 'No completed steps');

    const errors = (job.errorHistory || []).map((entry) => {
      const item = el('li');
      item.append(el('span', fmtDate(entry.timestamp) || NONE, 'when'), el('div', entry.message));
      return item;
    });
    $('errors').replaceChildren(...(errors.length ? errors : [el('li', 'No errors', 'muted')]));

    const events = eventsBody.events.map((event) => {
      const item = el('li');
      item.append(el('span', event.eventType, 'event'), el('span', fmtDate(event.createdAt), 'when'));
      if (event.metadata !== null && event.metadata !== undefined) item.append(el('code', JSON.stringify(event.metadata), 'meta'));
      return item;
    });
    $('events').replaceChildren(...(events.length ? events : [el('li', 'No events', 'muted')]));
  }

  // Rendering and refresh

  async function render() {
    const state = readHash();
    const gen = ++generation;
    if (state.job === null) listHash = location.hash || '#';
    $('list-view').hidden = state.job !== null;
    $('detail-view').hidden = state.job === null;
    busy = true;
    try {
      if (state.job === null) await loadList(state, gen);
      else await loadDetail(state, gen);
      if (gen === generation && loadFailed) {
        loadFailed = false;
        $('notice').hidden = true;
      }
    } catch (error) {
      if (gen !== generation) return;
      notify('Could not load: ' + error.message, true);
      loadFailed = true;
    } finally {
      if (gen === generation) busy = false;
    }
  }

  async function act(button, run) {
    button.disabled = true;
    try {
      notify(await run());
    } catch (error) {
      notify(error.message, true);
    } finally {
      button.disabled = false;
    }
    await render();
  }

  function setAutoRefresh(on) {
    clearInterval(timer);
    timer = on ? setInterval(() => { if (!busy) render(); }, REFRESH_MS) : null;
    try { localStorage.setItem('queuedev.autoRefresh', on ? '1' : '0'); } catch { /* storage may be disabled */ }
  }

  // Wiring

  for (const tab of document.querySelectorAll('.tab')) {
    tab.addEventListener('click', () => go(hashFor({ ...readHash(), status: tab.dataset.status, page: 0 })));
  }
  let typing = null;
  $('job-type').addEventListener('input', (event) => {
    clearTimeout(typing);
    typing = setTimeout(() => go(hashFor({ ...readHash(), type: event.target.value.trim(), page: 0 })), 350);
  });
  $('prev').addEventListener('click', () => { const s = readHash(); go(hashFor({ ...s, page: Math.max(0, s.page - 1) })); });
  $('next').addEventListener('click', () => { const s = readHash(); go(hashFor({ ...s, page: s.page + 1 })); });
  $('jobs').addEventListener('click', (event) => {
    const row = event.target.closest('tr');
    if (row && !event.target.closest('a')) go('#job=' + row.dataset.id);
  });
  $('jobs').addEventListener('keydown', (event) => {
    const row = event.target.closest('tr');
    if (row && event.key === 'Enter') go('#job=' + row.dataset.id);
  });
  $('refresh').addEventListener('click', () => render());
  $('process').addEventListener('click', (event) => act(event.currentTarget, async () => {
    const body = await request('POST', '/process');
    return 'Processed ' + body.processed + (body.processed === 1 ? ' job.' : ' jobs.');
  }));
  $('cancel').addEventListener('click', (event) => act(event.currentTarget, async () => {
    const id = shownJobId;
    await request('POST', '/jobs/' + id + '/cancel');
    return 'Job #' + id + ' cancelled.';
  }));
  $('retry').addEventListener('click', (event) => act(event.currentTarget, async () => {
    const id = shownJobId;
    await request('POST', '/jobs/' + id + '/retry');
    return 'Job #' + id + ' will be retried.';
  }));
  const auto = $('auto-refresh');
  auto.addEventListener('change', () => setAutoRefresh(auto.checked));
  try { auto.checked = localStorage.getItem('queuedev.autoRefresh') === '1'; } catch { auto.checked = false; }
  if (auto.checked) setAutoRefresh(true);
  window.addEventListener('hashchange', () => render());
  render();
})();
`;
