/**
 * The cron view's styles (browser/cron.ts), inlined after PAGE_STYLES under the same nonce:
 * the header's view links, the schedule status badges and the inline expression editor.
 */
export const CRON_STYLES = `
nav.views { display: flex; gap: 0.25rem; margin-right: auto; }
nav.views a { padding: 0.3rem 0.7rem; border-radius: 6px; text-decoration: none; color: var(--muted); }
nav.views a[aria-current="page"] { color: var(--text); background: var(--hover); font-weight: 600; }
.view-title { margin-bottom: 0.9rem; }
#cron-view tbody tr { cursor: default; }
.badge.cron-active { color: var(--completed); } .badge.cron-paused { color: var(--cancelled); }
#cron-view .actions { gap: 0.35rem; }
#cron-view .actions button, .cron-edit button { padding: 0.25rem 0.6rem; font-size: 0.85rem; }
#cron-view td:last-child { white-space: normal; }
.cron-edit { display: flex; gap: 0.4rem; }
.cron-edit input {
  width: 11rem; padding: 0.3rem 0.5rem; border: 1px solid var(--line); border-radius: 6px; background: var(--bg);
  font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
}
`;
