/**
 * The style of the overview above the job list (browser/overview.ts): counts on the tabs, the
 * chart of the last hour and the job type table. Colours are the page's status colours.
 */
export const OVERVIEW_STYLES = `
.overview { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 1rem; margin-bottom: 1rem; }
.overview:empty { display: none; }
.tab .count { font-variant-numeric: tabular-nums; font-weight: 400; color: var(--muted); }
.tab[data-status="failed"] .count { color: var(--failed); }
svg.chart { display: block; width: 100%; height: auto; }
svg.chart .axis { stroke: var(--line); }
svg.chart .tick { fill: var(--muted); font-size: 11px; }
svg.chart rect.completed, .key.completed::before { fill: var(--completed); background: var(--completed); }
svg.chart rect.failed, .key.failed::before { fill: var(--failed); background: var(--failed); }
.legend { display: flex; gap: 1rem; margin: 0.4rem 0 0; font-size: 0.8rem; color: var(--muted); }
.key::before { content: ""; display: inline-block; width: 0.7rem; height: 0.7rem; border-radius: 2px; margin-right: 0.35rem; vertical-align: -0.05rem; }
.overview p { margin: 0.4rem 0 0; font-size: 0.85rem; }
.types-wrap { max-height: 14rem; overflow: auto; }
.types-wrap th, .types-wrap td { padding: 0.3rem 0.5rem; font-size: 0.85rem; }
.types-wrap th.type { font-weight: 400; color: var(--text); max-width: 14rem; overflow: hidden; text-overflow: ellipsis; }
.types-wrap tr[aria-current="true"] th.type a { font-weight: 600; }
.types-wrap tbody tr { cursor: default; }
.types-wrap a.failed-count { color: var(--failed); font-weight: 600; }
@media (max-width: 720px) {
  .overview { grid-template-columns: minmax(0, 1fr); }
}
`;
