/**
 * The overview route: job counts per status and job type, and completed and failed attempts per
 * minute over the last hour, for the page's status tabs, job type table and chart.
 */
import { jsonResponse } from './http.js';
import type { ResolvedDashboardConfig } from './config.js';
import type { RouteDef } from './route.js';

/**
 * GET /api/overview → 200 { counts: JobCounts, throughput: ThroughputMinute[] } (dates as ISO
 * strings). It takes no parameter: the counts use the default limit (10,000 per status) and the
 * throughput the last 60 minutes, so its cost is bounded whatever the request says.
 */
async function getOverview({ queue }: ResolvedDashboardConfig): Promise<Response> {
  const [counts, throughput] = await Promise.all([queue.getJobCounts(), queue.getThroughput()]);
  return jsonResponse(200, { counts, throughput });
}

export const overviewRoutes: RouteDef[] = [{ pattern: /^\/api\/overview$/, GET: ({ config }) => getOverview(config) }];
