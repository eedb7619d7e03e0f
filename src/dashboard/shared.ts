/**
 * What the dashboard's server (api.ts, page.ts) and its browser script (browser/app.ts) must
 * agree on, defined once. The browser build (scripts/build-dashboard.ts) bundles this module
 * into the page script, so it holds plain values only and imports nothing that needs Node.
 */
import { JOB_STATUSES, type JobStatus } from '../types.js';

export { JOB_STATUSES };

/** Jobs per list page when the request gives no `limit`; the page asks for exactly this many. */
export const DEFAULT_PAGE_SIZE = 25;

/** Largest `limit` GET /api/jobs accepts. */
export const MAX_PAGE_SIZE = 200;

/** Statuses a job can be cancelled from (SPEC §3): the page shows "Cancel job" for these only. */
export const CANCELLABLE_STATUSES: readonly JobStatus[] = ['pending', 'waiting'];

/** Statuses a job can be retried from (SPEC §3): the page shows "Retry job" for these only. */
export const RETRYABLE_STATUSES: readonly JobStatus[] = ['failed', 'cancelled'];
