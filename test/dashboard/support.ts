/**
 * Helpers for the dashboard tests: requests against the handlers, jobs seeded in every
 * status, and a node:http server serving the handlers through the library's `toNodeHandler`.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import pg from 'pg';
import {
  createQueueDashboard,
  toNodeHandler,
  type DashboardConfig,
  type NodeDashboardHandler,
  type QueueDashboard,
} from '../../src/dashboard/index.js';
import { sendNodeResponse } from '../../src/dashboard/node.js';
import { initJobQueue, type JobQueue } from '../../src/queue.js';
import { claimJob, completeJob, failJob } from '../conformance/job-states.js';
import { PG_URL, REDIS_URL, type BackendContext } from '../helpers/backends.js';

export const HOST = 'dashboard.test';
export const ORIGIN = `http://${HOST}`;
/** The headers a browser sends with a fetch from the dashboard's own page. */
export const SAME_ORIGIN_HEADERS = { Host: HOST, Origin: ORIGIN, 'Sec-Fetch-Site': 'same-origin' };
export const BASE_PATH = '/admin/jobs';

export interface DashboardClient {
  dashboard: QueueDashboard;
  /** GET `basePath + path`. */
  get(path: string): Promise<Response>;
  /**
   * POST `basePath + path` with `headers`, by default those of the dashboard's own page, and
   * `body`, when given, sent as JSON.
   */
  post(path: string, headers?: Record<string, string>, body?: unknown): Promise<Response>;
}

export function dashboardClient(queue: JobQueue, options: Partial<DashboardConfig> = {}): DashboardClient {
  const basePath = options.basePath ?? BASE_PATH;
  const dashboard = createQueueDashboard({ jobQueue: queue, jobHandlers: {}, ...options, basePath });
  const url = (path: string) => ORIGIN + (basePath === '/' ? '' : basePath) + path;
  return {
    dashboard,
    get: (path) => dashboard.GET(new Request(url(path))),
    post: (path, headers = SAME_ORIGIN_HEADERS, body?: unknown) =>
      dashboard.POST(
        new Request(url(path), {
          method: 'POST',
          headers: body === undefined ? headers : { ...headers, 'Content-Type': 'application/json' },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        }),
      ),
  };
}

/** Status and JSON body of a response. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each route answers its own JSON shape; tests read the fields they assert on, as they read raw driver rows
export async function read(response: Response): Promise<{ status: number; body: any }> {
  return { status: response.status, body: await response.json() };
}

export interface SeededJobs {
  pending: number;
  processing: number;
  completed: number;
  failed: number;
  cancelled: number;
  waiting: number;
}

/** One job in each status, each of its own type (`<status>-job`), added in the order above. */
export async function seedJobsInEveryStatus(queue: JobQueue): Promise<SeededJobs> {
  const add = (status: string) => queue.addJob({ jobType: `${status}-job`, payload: { status }, maxAttempts: 1 });
  const pending = await add('pending');
  const processing = await add('processing');
  await claimJob(queue, processing);
  const completed = await add('completed');
  await completeJob(queue, completed, { sent: true });
  const failed = await add('failed');
  await failJob(queue, failed, { message: 'smtp down' });
  const cancelled = await add('cancelled');
  await queue.cancelJob(cancelled);
  const waiting = await add('waiting');
  const processor = queue.createProcessor(
    { 'waiting-job': async (_payload, _signal, ctx) => ctx.waitFor({ hours: 1 }) },
    { jobType: 'waiting-job' },
  );
  await processor.start();
  return { pending, processing, completed, failed, cancelled, waiting };
}

/**
 * A queue on the test's store whose driver is already closed, so every storage call fails:
 * the way to reach the dashboard's 500 responses without mocking the store.
 */
export async function queueWithClosedDriver(ctx: BackendContext): Promise<JobQueue> {
  if (ctx.backend === 'postgres') {
    const pool = new pg.Pool({ connectionString: PG_URL });
    await pool.end();
    return initJobQueue({ backend: 'postgres', pool, schema: ctx.schema });
  }
  const client = new Redis(REDIS_URL);
  await client.quit();
  return initJobQueue({ backend: 'redis', client, keyPrefix: ctx.keyPrefix });
}

/**
 * What the docs warned against before: the URL resolved from the request path, so a path
 * '//attacker.test/...' makes the URL's origin the attacker's. The dashboard must stay safe
 * behind it too, since the CSRF check reads headers, not the URL.
 */
export function toFetchRequestResolvingPath(req: IncomingMessage): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === 'string') headers.set(name, value);
  }
  return new Request(new URL(req.url ?? '/', `http://${req.headers.host}`), { method: req.method, headers });
}

/**
 * A node:http handler around an adapter that is not the library's (`adapt` builds the Request):
 * how the dashboard fares behind an adapter written differently.
 */
export function nodeHandlerWith(
  dashboard: QueueDashboard,
  adapt: (req: IncomingMessage) => Request,
): NodeDashboardHandler {
  return async (req, res) => {
    req.resume(); // these adapters forward no body
    const request = adapt(req);
    const response = await (req.method === 'POST' ? dashboard.POST : dashboard.GET)(request);
    await sendNodeResponse(res, response);
  };
}

/**
 * Serves the dashboard on 127.0.0.1 at a random port through `handler`, by default the
 * library's `toNodeHandler`; `url` is the page's address.
 */
export async function serveDashboard(
  dashboard: QueueDashboard,
  basePath: string,
  handler: NodeDashboardHandler = toNodeHandler(dashboard),
): Promise<{ url: string; port: number; close(): Promise<void> }> {
  const server = createServer((req, res) => void handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${basePath}`,
    port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
