// The mount docs/dashboard.md shows: one optional catch-all route serves the page and the API.
import { dashboard } from '../../../../lib/dashboard';

export const dynamic = 'force-dynamic';
export const { GET, POST } = dashboard;
