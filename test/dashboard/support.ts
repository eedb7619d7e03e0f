/**
 * Helpers for the dashboard tests: requests against the handlers, jobs seeded in every
 * status, and a node:http server wrapping the handlers (the adapter docs/dashboard.md shows).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { Redis } from 'ioredis';
import pg from 'pg';
import { createQueueDashboard, type DashboardConfig, type QueueDashboard } from '../../src/dashboard/index.js';
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
 * The adapter of docs/dashboard.md, as written there: every header (Host included) is copied,
 * and the URL is the path concatenated onto a fixed origin, never resolved against one, so a
 * path starting with '//' cannot choose the URL's host. The dashboard reads only path and query.
 */
export function toFetchRequest(req: IncomingMessage, path: string): Request | null {
  // Only origin-form paths ('/...'); an absolute-form target ('http://host/...') is refused.
  if (!path.startsWith('/')) return null;
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) value.forEach((v) => headers.append(name, v));
    else if (value !== undefined) headers.set(name, value);
  }
  // A POST's body goes on as a stream (the edit routes read JSON); the dashboard reads at most 1 MiB.
  const body = req.method === 'POST' ? (Readable.toWeb(req) as ReadableStream<Uint8Array>) : null;
  return new Request(`http://localhost${path}`, { method: req.method, headers, body, duplex: 'half' });
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

/** Serves the dashboard on 127.0.0.1 at a random port; `url` is the page's address. */
export async function serveDashboard(
  dashboard: QueueDashboard,
  basePath: string,
  adapt: (req: IncomingMessage) => Request | null = (req) => toFetchRequest(req, req.url ?? ''),
): Promise<{ url: string; port: number; close(): Promise<void> }> {
  const respond = async (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'POST') req.resume(); // only a POST's body is passed on (toFetchRequest)
    const request = adapt(req);
    const handle =
      req.method === 'POST'
        ? (r: Request) => dashboard.POST(r)
        : req.method === 'GET'
          ? (r: Request) => dashboard.GET(r)
          : undefined;
    if (!request || !handle) {
      res.writeHead(request ? 405 : 400).end();
      return;
    }
    const response = await handle(request);
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
  };
  const server = createServer((req, res) => void respond(req, res));
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
