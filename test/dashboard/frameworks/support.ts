/**
 * One contract for the dashboard mounted in each web framework, checked over real HTTP against a
 * real server of that framework: the page loads, a JSON route answers, a same-origin POST with a
 * body acts, a cross-origin POST is refused, only paths under basePath reach the dashboard, and a
 * body over the limit is refused while the server keeps serving.
 *
 * Every mount also serves `GET /health` (the application's own route, answering `ok`) and the
 * body probe of echo.ts at `basePath/test/echo`.
 */
import { request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { createQueueDashboard, type QueueDashboard } from '../../../src/dashboard/index.js';
import { MAX_BODY_BYTES } from '../../../src/dashboard/route.js';
import type { JobQueue } from '../../../src/queue.js';
import { forEachBackend, type BackendContext, type SkipReasons } from '../../helpers/backends.js';
import { BASE_PATH } from '../support.js';
import { echoBody } from './echo.js';

export { BASE_PATH };
export const ECHO_PATH = `${BASE_PATH}/test/echo`;

/** A running server of one framework with the dashboard mounted at BASE_PATH. */
export interface MountedServer {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  close(): Promise<void>;
}

/** Starts a server for the test's queue. */
export type Mount = (ctx: BackendContext) => Promise<MountedServer>;

/** The test queue's dashboard at BASE_PATH with the echo probe in front of its POST handler. */
export function dashboardWithEcho(queue: JobQueue): QueueDashboard {
  const dashboard = createQueueDashboard({ jobQueue: queue, jobHandlers: {}, basePath: BASE_PATH });
  return {
    ...dashboard,
    POST: (request) => (new URL(request.url).pathname === ECHO_PATH ? echoBody(request) : dashboard.POST(request)),
  };
}

/** A mount for frameworks running in the test's process: `serve` gets the dashboard. */
export function inProcess(serve: (dashboard: QueueDashboard) => Promise<MountedServer>): Mount {
  return (ctx) => serve(dashboardWithEcho(ctx.queue));
}

export interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each route answers its own JSON shape
  json(): any;
}

/**
 * An HTTP request with exactly these headers (fetch would add and refuse some). `body` is sent
 * with a Content-Length, or in chunks (Transfer-Encoding: chunked) when `chunked`.
 */
export function send(
  origin: string,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string; chunked?: boolean } = {},
): Promise<Reply> {
  const { method = 'GET', headers = {}, body, chunked = false } = options;
  const url = new URL(origin);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path,
        method,
        // A connection per request: a server may close a connection after refusing a body
        // (Hono's Node.js server does), which a client reusing it would see as a failure.
        agent: false,
        headers: body === undefined || chunked ? headers : { ...headers, 'Content-Length': Buffer.byteLength(body) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: () => JSON.parse(text) });
        });
      },
    );
    req.on('error', reject);
    if (body !== undefined && chunked) {
      // Several writes, so the server receives the body in pieces without a declared length.
      const piece = 64 * 1024;
      for (let i = 0; i < body.length; i += piece) req.write(body.slice(i, i + piece));
    } else if (body !== undefined) {
      req.write(body);
    }
    req.end();
  });
}

/** The headers a browser sends with a fetch from the dashboard's own page at `origin`. */
export function sameOrigin(origin: string): Record<string, string> {
  return { Origin: origin, 'Sec-Fetch-Site': 'same-origin', 'Content-Type': 'application/json' };
}

const CROSS_ORIGIN = { Origin: 'http://evil.test', 'Sec-Fetch-Site': 'cross-site', 'Content-Type': 'application/json' };

/** Registers the mounting contract for `framework`, on every backend target not in `skip`. */
export function describeMount(framework: string, mount: Mount, options: { skip?: SkipReasons } = {}): void {
  forEachBackend({ title: `dashboard mounted in ${framework}`, skip: options.skip ?? {} }, (ctx) => {
    let server: MountedServer | undefined;
    afterEach(async () => {
      await server?.close();
      server = undefined;
    });
    const start = async () => (server = await mount(ctx));

    it('serves the page at basePath, with its security headers', async () => {
      const { origin } = await start();
      for (const path of [BASE_PATH, `${BASE_PATH}/`]) {
        let page = await send(origin, path);
        // Next.js redirects a trailing slash away (its default); the others serve the page there.
        if (page.status === 308) {
          expect(page.headers.location).toBe(BASE_PATH);
          page = await send(origin, BASE_PATH);
        }
        expect(page.status, path).toBe(200);
        expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
        expect(page.headers['content-security-policy']).toMatch(/script-src 'nonce-[^']+'/);
        expect(page.headers['x-content-type-options']).toBe('nosniff');
        expect(page.text).toContain(`data-base-path="${BASE_PATH}"`);
      }
    });

    it('answers the JSON routes with the queue’s jobs', async () => {
      const id = await ctx.queue.addJob({ jobType: 'email', payload: { to: 'a@example.com' } });
      const { origin } = await start();
      const list = await send(origin, `${BASE_PATH}/api/jobs?status=pending&limit=5`);
      expect(list.status).toBe(200);
      expect(list.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(list.json()).toMatchObject({ jobs: [{ id, jobType: 'email', status: 'pending' }], hasMore: false });
      const one = await send(origin, `${BASE_PATH}/api/jobs/${id}`);
      expect(one.json()).toMatchObject({ job: { id, payload: { to: 'a@example.com' } } });
      const missing = await send(origin, `${BASE_PATH}/api/jobs/999999`);
      expect([missing.status, missing.json()]).toEqual([404, { error: expect.any(String) }]);
    });

    it('runs a same-origin POST action sent with a JSON body', async () => {
      const id = await ctx.queue.addJob({ jobType: 'email', payload: {} });
      const { origin } = await start();
      const body = JSON.stringify({ reason: 'sent by mistake' });
      const reply = await send(origin, `${BASE_PATH}/api/jobs/${id}/cancel`, {
        method: 'POST',
        headers: sameOrigin(origin),
        body,
      });
      expect([reply.status, reply.json()]).toEqual([200, { ok: true }]);
      expect(await ctx.queue.getJob(id)).toMatchObject({ status: 'cancelled' });
    });

    it('hands a POST body to the route intact, sent with a length or in chunks', async () => {
      const { origin } = await start();
      // About 300 KB, over the default limit of the frameworks' own JSON parsers (100 KB).
      const sent = { note: 'déjà vu ✓', lines: Array.from({ length: 3000 }, (_, i) => `line ${i} `.padEnd(90, '.')) };
      for (const chunked of [false, true]) {
        const reply = await send(origin, ECHO_PATH, {
          method: 'POST',
          headers: sameOrigin(origin),
          body: JSON.stringify(sent),
          chunked,
        });
        expect(reply.status, `chunked: ${chunked}`).toBe(200);
        expect(reply.json()).toEqual({ received: sent });
      }
    });

    it('refuses a cross-origin POST with 403 and changes nothing', async () => {
      const id = await ctx.queue.addJob({ jobType: 'email', payload: {} });
      const { origin } = await start();
      const reply = await send(origin, `${BASE_PATH}/api/jobs/${id}/cancel`, {
        method: 'POST',
        headers: CROSS_ORIGIN,
        body: '{}',
      });
      expect(reply.status).toBe(403);
      expect(reply.json().error).toMatch(/^Cross-origin request refused/);
      expect(await ctx.queue.getJob(id)).toMatchObject({ status: 'pending' });
    });

    it('serves the dashboard under basePath only; the application’s other routes still answer', async () => {
      const { origin } = await start();
      expect((await send(origin, '/health')).text).toBe('ok');
      expect((await send(origin, `${BASE_PATH}/api/jobs`)).status).toBe(200);
      for (const path of ['/api/jobs', `${BASE_PATH}x/api/jobs`, '/admin/api/jobs']) {
        const reply = await send(origin, path);
        expect(reply.status, path).toBe(404);
        expect(reply.text, path).not.toContain('"jobs"');
      }
    });

    it('refuses a body over the limit with 400, then keeps serving', async () => {
      const { origin } = await start();
      const big = JSON.stringify({ data: 'x'.repeat(2 * MAX_BODY_BYTES) });
      for (const chunked of [false, true]) {
        const reply = await send(origin, ECHO_PATH, {
          method: 'POST',
          headers: sameOrigin(origin),
          body: big,
          chunked,
        });
        expect(reply.status, `chunked: ${chunked}`).toBe(400);
        expect(reply.json().error).toMatch(new RegExp(`^Expected \`body\` to be at most ${MAX_BODY_BYTES} bytes`));
      }
      expect((await send(origin, BASE_PATH)).status).toBe(200);
    });
  });
}

/** Listens on 127.0.0.1 at a random port; close() ends open connections too. */
export async function listen(server: Server): Promise<MountedServer> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
