/**
 * Helpers for the dashboard tests: requests against the handlers, jobs seeded in every
 * status, and a node:http server wrapping the handlers (the adapter docs/dashboard.md shows).
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import pg from 'pg';
import { createQueueDashboard, type DashboardConfig, type QueueDashboard } from '../../src/dashboard/index.js';
import { initJobQueue, type JobQueue } from '../../src/queue.js';
import type { PayloadMap } from '../../src/types.js';
import { claimJob, completeJob, failJob } from '../conformance/job-states.js';
import { PG_URL, REDIS_URL, type BackendContext } from '../helpers/backends.js';

export const ORIGIN = 'http://dashboard.test';
export const BASE_PATH = '/admin/jobs';

export interface DashboardClient {
  dashboard: QueueDashboard;
  /** GET `basePath + path`. */
  get(path: string): Promise<Response>;
  /** POST `basePath + path`, same-origin unless `headers` say otherwise. */
  post(path: string, headers?: Record<string, string>): Promise<Response>;
}

export function dashboardClient(
  queue: JobQueue<PayloadMap>,
  options: Partial<DashboardConfig> = {},
): DashboardClient {
  const basePath = options.basePath ?? BASE_PATH;
  const dashboard = createQueueDashboard({ jobQueue: queue, jobHandlers: {}, ...options, basePath });
  const url = (path: string) => ORIGIN + (basePath === '/' ? '' : basePath) + path;
  return {
    dashboard,
    get: (path) => dashboard.GET(new Request(url(path))),
    post: (path, headers = { Origin: ORIGIN }) => dashboard.POST(new Request(url(path), { method: 'POST', headers })),
  };
}

/** Status and JSON body of a response. */
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
export async function seedJobsInEveryStatus(queue: JobQueue<PayloadMap>): Promise<SeededJobs> {
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
export async function queueWithClosedDriver(ctx: BackendContext): Promise<JobQueue<PayloadMap>> {
  if (ctx.backend === 'postgres') {
    const pool = new pg.Pool({ connectionString: PG_URL });
    await pool.end();
    return initJobQueue({ backend: 'postgres', pool, schema: ctx.schema });
  }
  const client = new Redis(REDIS_URL);
  await client.quit();
  return initJobQueue({ backend: 'redis', client, keyPrefix: ctx.keyPrefix });
}

function toRequest(req: IncomingMessage, body: Buffer): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) value.forEach((v) => headers.append(name, v));
    else if (value !== undefined) headers.set(name, value);
  }
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD' && body.length > 0;
  return new Request(`http://${req.headers.host}${req.url}`, { method: req.method, headers, body: hasBody ? body : undefined });
}

/** Serves the dashboard on 127.0.0.1 at a random port; `url` is the page's address. */
export async function serveDashboard(
  dashboard: QueueDashboard,
  basePath: string,
): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const request = toRequest(req, Buffer.concat(chunks));
    const response = req.method === 'POST' ? await dashboard.POST(request) : await dashboard.GET(request);
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${basePath}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
