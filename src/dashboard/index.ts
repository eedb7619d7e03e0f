/**
 * `queuedev/dashboard`: an admin page and its JSON API as two standard Fetch API handlers,
 * `GET` and `POST`, mountable in any framework that speaks Request/Response (SPEC §4.11).
 * The dashboard has no login of its own: the host application protects the mount path (§5.3).
 */
import type { PayloadMap } from '../types.js';
import { findRoutes } from './api-find.js';
import { actionRoutes } from './api-actions.js';
import { getJob, getJobEvents, listJobs, parseJobId, processBatch, runJobAction } from './api.js';
import { cronRoutes } from './api-cron.js';
import { overviewRoutes } from './api-overview.js';
import { resolveDashboardConfig, type DashboardConfig, type ResolvedDashboardConfig } from './config.js';
import { errorResponse } from './errors.js';
import { createNonce, crossOriginRefusal, htmlResponse, jsonResponse } from './http.js';
import { renderPage } from './page.js';
import type { RouteDef, RouteInput } from './route.js';

export type { DashboardConfig } from './config.js';
export { fastifyDashboard, koaDashboard, toNodeHandler, type NodeDashboardHandler } from './node.js';

/** Function properties, not methods: `export const { GET, POST } = dashboard` is the usual mount. */
export interface QueueDashboard {
  /** Serves the page (`basePath`) and the read routes (`basePath/api/...`). */
  GET: (request: Request) => Promise<Response>;
  /** Serves the actions (cancel, retry, bulk retry and cancel, delete, edit, process a batch). Cross-origin browser requests get 403. */
  POST: (request: Request) => Promise<Response>;
  /** The configured `basePath`, for mounting: `app.use(dashboard.basePath, toNodeHandler(dashboard))`. */
  readonly basePath: string;
}

/** Paths relative to basePath; `:id` is one path segment, checked by parseJobId. */
const ROUTES: RouteDef[] = [
  { pattern: /^\/$/, GET: ({ config }) => Promise.resolve(page(config)) },
  ...actionRoutes,
  { pattern: /^\/api\/jobs$/, GET: ({ config, params }) => listJobs(config, params) },
  { pattern: /^\/api\/jobs\/([^/]+)$/, GET: ({ config, id }) => getJob(config, parseJobId(id)) },
  { pattern: /^\/api\/jobs\/([^/]+)\/events$/, GET: ({ config, id }) => getJobEvents(config, parseJobId(id)) },
  {
    pattern: /^\/api\/jobs\/([^/]+)\/cancel$/,
    POST: ({ config, id }) => runJobAction(config, parseJobId(id), 'cancel'),
  },
  {
    pattern: /^\/api\/jobs\/([^/]+)\/retry$/,
    POST: ({ config, id }) => runJobAction(config, parseJobId(id), 'retry'),
  },
  { pattern: /^\/api\/process$/, POST: ({ config }) => processBatch(config) },
  ...cronRoutes,
  ...findRoutes,
  ...overviewRoutes,
];

function matchRoute(path: string): { route: RouteDef; id: string } | undefined {
  for (const route of ROUTES) {
    const match = route.pattern.exec(path);
    if (match) return { route, id: match[1] ?? '' };
  }
  return undefined;
}

function page(config: ResolvedDashboardConfig): Response {
  const nonce = createNonce();
  return htmlResponse(renderPage({ basePath: config.basePath, nonce, readOnly: config.readOnly }), nonce);
}

/** The path below basePath ('/' for basePath itself), or null when the URL is outside it. */
function relativePath(basePath: string, pathname: string): string | null {
  let rest: string;
  if (basePath === '/') rest = pathname;
  else if (pathname === basePath) rest = '/';
  else if (pathname.startsWith(`${basePath}/`)) rest = pathname.slice(basePath.length);
  else return null;
  // Tolerate one trailing slash, as most frameworks do.
  return rest.length > 1 && rest.endsWith('/') ? rest.slice(0, -1) : rest;
}

/**
 * Creates the dashboard. Throws ConfigError when the configuration is invalid.
 * @example
 * const dashboard = createQueueDashboard({ jobQueue, jobHandlers, basePath: '/admin/jobs' });
 * // app/admin/jobs/[[...path]]/route.ts, behind the application's own access check (SPEC §5.3):
 * export const { GET, POST } = dashboard;
 */
export function createQueueDashboard<P extends PayloadMap = PayloadMap>(config: DashboardConfig<P>): QueueDashboard {
  const resolved = resolveDashboardConfig(config);

  const handle = async (method: 'GET' | 'POST', request: Request): Promise<Response> => {
    const url = new URL(request.url);
    const path = relativePath(resolved.basePath, url.pathname);
    const found = path === null ? undefined : matchRoute(path);
    if (!found) return jsonResponse(404, { error: 'Not found' });
    const { route, id } = found;
    const run = route[method];
    if (!run) {
      const allow = route.GET ? 'GET' : 'POST';
      return jsonResponse(405, { error: `Method not allowed: use ${allow}` }, { Allow: allow });
    }
    if (method === 'POST' && resolved.readOnly) {
      return jsonResponse(403, { error: 'This dashboard is read-only (readOnly: true): it takes no action' });
    }
    const refusal = method === 'POST' ? crossOriginRefusal(request.headers) : null;
    if (refusal !== null) {
      return jsonResponse(403, {
        error: `Cross-origin request refused (${refusal}): POST routes accept same-origin requests only`,
      });
    }
    const input: RouteInput = { config: resolved, params: url.searchParams, id, request };
    try {
      return await run(input);
    } catch (err) {
      return errorResponse(err);
    }
  };

  return {
    GET: (request) => handle('GET', request),
    POST: (request) => handle('POST', request),
    basePath: resolved.basePath,
  };
}
