/**
 * The dashboard page's stylesheet, inlined under the CSP nonce. System fonts only; colours meet
 * WCAG AA contrast on their backgrounds; the layout narrows to one column below 720 px.
 */
export const PAGE_STYLES = `
:root {
  color-scheme: light dark;
  --bg: #f6f7f9; --panel: #ffffff; --text: #1c2430; --muted: #5a6472; --line: #dde1e6;
  --accent: #1f5fbf; --accent-text: #ffffff; --hover: #eef2f7; --danger: #b42318;
  --pending: #1f5fbf; --processing: #8a5a00; --completed: #17713a; --failed: #b42318;
  --cancelled: #5a6472; --waiting: #6941c6;
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  font-size: 15px; line-height: 1.45;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #12161c; --panel: #1a2029; --text: #e6e9ee; --muted: #a3acb9; --line: #2d3540;
    --accent: #5b9bf0; --accent-text: #0b1220; --hover: #222a35; --danger: #f97066;
    --pending: #7cb1f7; --processing: #f2b84b; --completed: #5fd08a; --failed: #f97066;
    --cancelled: #a3acb9; --waiting: #b69cf5;
  }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--text); }
[hidden] { display: none !important; }
h1, h2, h3 { margin: 0; line-height: 1.2; }
h1 { font-size: 1.25rem; }
h2 { font-size: 1.2rem; }
h3 { font-size: 0.8rem; text-transform: uppercase; letter-spacing: 0.05em; color: var(--muted); margin-bottom: 0.6rem; }
a { color: var(--accent); }
button, input { font: inherit; color: inherit; }
button {
  border: 1px solid var(--line); background: var(--panel); border-radius: 6px;
  padding: 0.4rem 0.8rem; cursor: pointer; white-space: nowrap;
}
button:hover:not(:disabled) { background: var(--hover); }
button:disabled { opacity: 0.45; cursor: default; }
button.primary { background: var(--accent); border-color: var(--accent); color: var(--accent-text); }
button.primary:hover:not(:disabled) { filter: brightness(1.1); background: var(--accent); }
button:focus-visible, input:focus-visible, a:focus-visible, tr:focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
.top {
  display: flex; flex-wrap: wrap; align-items: center; justify-content: space-between; gap: 0.75rem;
  /* Side padding that lines the header's content up with main's centred 1200 px column. */
  padding: 0.9rem max(1.5rem, calc((100% - 1200px) / 2 + 1.5rem));
  background: var(--panel); border-bottom: 1px solid var(--line);
}
.actions { display: flex; flex-wrap: wrap; align-items: center; gap: 0.5rem; }
.toggle { display: inline-flex; align-items: center; gap: 0.35rem; color: var(--muted); cursor: pointer; margin-right: 0.25rem; }
main { max-width: 1200px; margin: 0 auto; padding: 1.25rem 1.5rem 3rem; }
#notice { margin: 0 0 1rem; padding: 0.6rem 0.9rem; border-radius: 6px; background: var(--panel); border: 1px solid var(--line); border-left: 4px solid var(--completed); }
#notice.error { border-left-color: var(--danger); color: var(--danger); }
.tabs { display: flex; gap: 0.25rem; overflow-x: auto; border-bottom: 1px solid var(--line); margin-bottom: 0.9rem; }
.tab { border: 0; border-bottom: 2px solid transparent; border-radius: 0; background: none; padding: 0.5rem 0.75rem; color: var(--muted); }
.tab[aria-selected="true"] { color: var(--text); border-bottom-color: var(--accent); font-weight: 600; }
.filters { display: flex; flex-wrap: wrap; gap: 0.5rem; margin-bottom: 0.9rem; }
.filters input.narrow { width: 8rem; }
.filters input { width: min(100%, 240px); padding: 0.4rem 0.6rem; border: 1px solid var(--line); border-radius: 6px; background: var(--panel); }
.table-wrap { background: var(--panel); border: 1px solid var(--line); border-radius: 8px; overflow-x: auto; }
table { width: 100%; border-collapse: collapse; }
th, td { text-align: left; padding: 0.55rem 0.8rem; border-bottom: 1px solid var(--line); white-space: nowrap; }
th { font-size: 0.8rem; color: var(--muted); font-weight: 600; }
tbody tr:last-child td { border-bottom: 0; }
tbody tr { cursor: pointer; }
tbody tr:hover { background: var(--hover); }
td.type { max-width: 24rem; overflow: hidden; text-overflow: ellipsis; }
.num { text-align: right; font-variant-numeric: tabular-nums; }
.muted { color: var(--muted); }
.last-error { font-size: .8rem; max-width: 28rem; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.empty { margin: 0; padding: 2rem; text-align: center; color: var(--muted); }
.badge {
  display: inline-block; padding: 0.1rem 0.55rem; border-radius: 999px; font-size: 0.8rem; font-weight: 600;
  border: 1px solid currentColor;
}
.badge.pending { color: var(--pending); } .badge.processing { color: var(--processing); }
.badge.completed { color: var(--completed); } .badge.failed { color: var(--failed); }
.badge.cancelled { color: var(--cancelled); } .badge.waiting { color: var(--waiting); }
.badge.hold { display: block; width: fit-content; margin-top: 0.2rem; font-weight: 500; font-size: 0.75rem; }
.badge.hold.due { color: var(--completed); } .badge.hold.scheduled { color: var(--pending); }
.badge.hold.dependencies, .badge.hold.group { color: var(--processing); }
.badge.hold.retry { color: var(--failed); } .badge.hold.wakes { color: var(--waiting); }
.pager { display: flex; align-items: center; justify-content: flex-end; gap: 0.75rem; margin-top: 0.9rem; color: var(--muted); }
.back { display: inline-block; margin-bottom: 0.8rem; }
.detail-head { display: flex; flex-wrap: wrap; align-items: center; gap: 0.75rem; margin-bottom: 1rem; }
.detail-head .actions { margin-left: auto; }
.grid { display: grid; grid-template-columns: repeat(2, minmax(0, 1fr)); gap: 1rem; }
.card { background: var(--panel); border: 1px solid var(--line); border-radius: 8px; padding: 1rem; min-width: 0; }
.card.span { grid-column: 1 / -1; }
dl { display: grid; grid-template-columns: repeat(auto-fill, minmax(15rem, 1fr)); gap: 0.6rem 1.5rem; margin: 0; }
dt { font-size: 0.8rem; color: var(--muted); }
dd { margin: 0; overflow-wrap: anywhere; }
pre {
  margin: 0; padding: 0.75rem; background: var(--bg); border-radius: 6px; overflow: auto; max-height: 24rem;
  font: 0.85rem/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; white-space: pre-wrap; overflow-wrap: anywhere;
}
ol.plain, ol.timeline { list-style: none; margin: 0; padding: 0; }
ol.plain li { padding: 0.5rem 0; border-bottom: 1px solid var(--line); }
ol.plain li:last-child { border-bottom: 0; }
details.stack { margin-top: 0.35rem; } details.stack summary { cursor: pointer; font-size: 0.8rem; color: var(--muted); }
details.stack pre { margin-top: 0.35rem; }
.when { display: block; font-size: 0.8rem; color: var(--muted); font-variant-numeric: tabular-nums; }
ol.timeline li { position: relative; padding: 0 0 0.9rem 1.25rem; border-left: 2px solid var(--line); margin-left: 0.35rem; }
ol.timeline li:last-child { padding-bottom: 0; }
ol.timeline li::before {
  content: ""; position: absolute; left: -6px; top: 0.3rem; width: 10px; height: 10px; border-radius: 50%;
  background: var(--panel); border: 2px solid var(--accent);
}
ol.timeline .event { font-weight: 600; margin-right: 0.5rem; }
ol.timeline .meta {
  display: block; margin-top: 0.25rem; font: 0.8rem/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
  color: var(--muted); overflow-wrap: anywhere;
}
dialog {
  max-width: min(32rem, calc(100% - 2rem)); padding: 1.25rem; border: 1px solid var(--line); border-radius: 8px;
  background: var(--panel); color: var(--text);
}
dialog::backdrop { background: rgb(0 0 0 / 0.4); }
dialog p { margin: 0 0 1rem; overflow-wrap: anywhere; }
dialog .actions { justify-content: flex-end; }
button.danger { background: var(--danger); border-color: var(--danger); color: var(--accent-text); }
button.danger:hover:not(:disabled) { filter: brightness(1.1); background: var(--danger); }
.progress { margin-bottom: 1rem; }
progress { display: block; width: 100%; height: 0.8rem; margin-top: 0.25rem; accent-color: var(--accent); }
@media (max-width: 720px) {
  .top { padding: 0.75rem 1rem; }
  main { padding: 1rem 1rem 2rem; }
  .grid { grid-template-columns: minmax(0, 1fr); }
  .wide-only { display: none; }
  .tabs { flex-wrap: wrap; }
  dl { grid-template-columns: repeat(2, minmax(0, 1fr)); gap: 0.6rem 1rem; }
  th, td { padding: 0.5rem 0.6rem; }
  td.type { max-width: 12rem; }
  .pager { justify-content: space-between; }
  .detail-head .actions { margin-left: 0; width: 100%; }
}
`;
