/**
 * The overview above the job list (GET /api/overview): the job counts on the status tabs
 * ("Failed 12", "Completed 10,000+"), a table of job types whose names link to the list
 * filtered by type, and a chart of completed jobs and failed attempts per minute over the last
 * hour. The chart is SVG built here element by element, with no library: the page's CSP allows
 * nothing from elsewhere. Loaded with the list, so it refreshes with it.
 */
import type { JobCounts, ThroughputMinute } from '../../overview-types.js';
import type { JobStatus } from '../../types.js';
import { JOB_STATUSES } from '../shared.js';
import { $, countText, el, isStatus, numberFormat, request, showRows, type Json } from './dom.js';

/** Where a link of the overview leads: the list's hash for a status and a job type. */
export type ListHref = (status: JobStatus | '', type: string) => string;

interface Overview {
  counts: JobCounts;
  throughput: Json<ThroughputMinute>[];
}

const SVG_NS = 'http://www.w3.org/2000/svg';
const timeFormat = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });
const label = (status: string) => status[0]!.toUpperCase() + status.slice(1);

/**
 * Loads the overview and shows it; `current` tells whether this load is still the page's
 * latest (a later render supersedes it).
 */
export async function loadOverview(
  shown: { status: JobStatus | ''; type: string },
  current: () => boolean,
  hrefFor: ListHref,
): Promise<void> {
  const body = await request<Overview>('GET', '/overview');
  if (!current()) return;
  const section = $('overview');
  if (section.childElementCount === 0) section.append(...overviewMarkup());
  showTabCounts(body.counts);
  showTypes(body.counts, shown, hrefFor);
  showThroughput(body.throughput);
}

function showTabCounts({ byStatus, atLeast }: JobCounts): void {
  const total = JOB_STATUSES.reduce((sum, s) => sum + byStatus[s], 0);
  for (const tab of document.querySelectorAll<HTMLElement>('.tab')) {
    const status = tab.dataset.status ?? null;
    const text = isStatus(status)
      ? countText(byStatus[status], atLeast.includes(status))
      : countText(total, atLeast.length > 0);
    let count = tab.querySelector('.count');
    if (!count) {
      // A space first, so the tab's name reads "Failed 12".
      tab.append(' ');
      count = tab.appendChild(el('span', null, 'count'));
    }
    count.textContent = text;
  }
}

function showTypes(
  { byJobType, atLeast, limit }: JobCounts,
  shown: { status: JobStatus | ''; type: string },
  hrefFor: ListHref,
): void {
  const typeRow = ({ jobType, counts }: (typeof byJobType)[number]) => {
    const row = el('tr');
    if (jobType === shown.type) row.setAttribute('aria-current', 'true');
    const name = el('a', jobType);
    name.href = hrefFor(shown.status, jobType);
    const nameCell = el('th', null, 'type');
    nameCell.scope = 'row';
    nameCell.append(name);
    row.append(nameCell);
    for (const status of JOB_STATUSES) {
      const cell = el('td', null, 'num');
      if (counts[status] === 0) cell.append(el('span', '0', 'muted'));
      else {
        const link = el('a', numberFormat.format(counts[status]), status === 'failed' ? 'failed-count' : '');
        link.href = hrefFor(status, jobType);
        link.setAttribute('aria-label', `${counts[status]} ${status} ${jobType} jobs`);
        cell.append(link);
      }
      row.append(cell);
    }
    return row;
  };
  showRows(
    $('type-counts'),
    byJobType,
    (t) => JSON.stringify([t, t.jobType === shown.type, hrefFor(shown.status, t.jobType)]),
    typeRow,
  );
  $('types-empty').hidden = byJobType.length > 0;
  const note = $('types-note');
  note.hidden = atLeast.length === 0;
  note.textContent = `${atLeast.map(label).join(', ')}: counted among the newest ${numberFormat.format(limit)} jobs.`;
}

/** An SVG element with attributes. */
function svg<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attributes: Record<string, string | number> = {},
  text?: string,
): SVGElementTagNameMap[K] {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}

const WIDTH = 600;
const HEIGHT = 140;
const LEFT = 40;
const BOTTOM = 18;
const TOP = 8;

function showThroughput(minutes: Json<ThroughputMinute>[]): void {
  const completed = minutes.reduce((sum, m) => sum + m.completed, 0);
  const failed = minutes.reduce((sum, m) => sum + m.failed, 0);
  const summary = `Last ${minutes.length} minutes: ${numberFormat.format(completed)} completed, ${numberFormat.format(failed)} failed.`;
  $('throughput-total').textContent = summary;
  $('throughput-chart').replaceChildren(chart(minutes, summary));
}

/** Stacked bars per minute (completed below, failed above), oldest on the left. */
function chart(minutes: Json<ThroughputMinute>[], summary: string): SVGSVGElement {
  const root = svg('svg', {
    viewBox: `0 0 ${WIDTH} ${HEIGHT}`,
    role: 'img',
    'aria-labelledby': 'throughput-title throughput-desc',
    class: 'chart',
  });
  root.append(
    svg('title', { id: 'throughput-title' }, 'Completed and failed jobs per minute'),
    svg('desc', { id: 'throughput-desc' }, summary),
  );
  const peak = Math.max(1, ...minutes.map((m) => m.completed + m.failed));
  const plotHeight = HEIGHT - TOP - BOTTOM;
  const slot = (WIDTH - LEFT) / Math.max(1, minutes.length);
  const y = (value: number) => TOP + plotHeight - (value / peak) * plotHeight;
  root.append(
    svg('line', { x1: LEFT, x2: WIDTH, y1: y(0), y2: y(0), class: 'axis' }),
    svg('text', { x: LEFT - 6, y: y(peak) + 4, 'text-anchor': 'end', class: 'tick' }, numberFormat.format(peak)),
    svg('text', { x: LEFT - 6, y: y(0) + 4, 'text-anchor': 'end', class: 'tick' }, '0'),
  );
  minutes.forEach((m, i) => {
    if (m.completed + m.failed === 0) return;
    const x = LEFT + i * slot + slot * 0.15;
    const width = Math.max(1, slot * 0.7);
    const group = svg('g', { class: 'minute' });
    group.append(
      svg('title', {}, `${timeFormat.format(new Date(m.minute))}: ${m.completed} completed, ${m.failed} failed`),
    );
    if (m.completed > 0)
      group.append(svg('rect', { x, width, y: y(m.completed), height: y(0) - y(m.completed), class: 'completed' }));
    if (m.failed > 0) {
      const top = y(m.completed + m.failed);
      group.append(svg('rect', { x, width, y: top, height: y(m.completed) - top, class: 'failed' }));
    }
    root.append(group);
  });
  const first = minutes[0];
  if (first) {
    const base = HEIGHT - 4;
    root.append(
      svg('text', { x: LEFT, y: base, class: 'tick' }, timeFormat.format(new Date(first.minute))),
      svg('text', { x: WIDTH, y: base, 'text-anchor': 'end', class: 'tick' }, 'now'),
    );
  }
  return root;
}

/** The overview's markup, built once inside the page's `#overview` section. */
function overviewMarkup(): HTMLElement[] {
  const chartCard = el('section', null, 'card');
  const legend = el('p', null, 'legend');
  legend.append(el('span', 'Completed', 'key completed'), el('span', 'Failed', 'key failed'));
  const chartBox = el('div');
  chartBox.id = 'throughput-chart';
  const total = el('p', null, 'muted');
  total.id = 'throughput-total';
  chartCard.append(el('h3', 'Last hour'), chartBox, legend, total);

  const typesCard = el('section', null, 'card');
  const table = el('table');
  const head = el('tr');
  head.append(el('th', 'Job type'), ...JOB_STATUSES.map((s) => el('th', label(s), 'num')));
  const thead = el('thead');
  thead.append(head);
  const tbody = el('tbody');
  tbody.id = 'type-counts';
  table.append(thead, tbody);
  const wrap = el('div', null, 'types-wrap');
  wrap.append(table);
  const empty = el('p', 'No jobs yet.', 'muted');
  empty.id = 'types-empty';
  const note = el('p', null, 'muted');
  note.id = 'types-note';
  note.hidden = true;
  typesCard.append(el('h3', 'Job types'), wrap, empty, note);
  return [chartCard, typesCard];
}
