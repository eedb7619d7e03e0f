/**
 * toNodeHandler's conversions, seen from a real node:http server: the Request URL it builds
 * (Host and path put together, never resolved), HEAD, methods it does not serve, Set-Cookie
 * headers kept apart, and a handler that throws. The framework mounts are in frameworks/.
 */
import { createServer } from 'node:http';
import { afterEach, expect, it } from 'vitest';
import { toNodeHandler, type QueueDashboard } from '../../src/dashboard/index.js';
import { forEachBackend } from '../helpers/backends.js';
import { listen, send, type MountedServer } from './frameworks/support.js';
import { BASE_PATH, dashboardClient } from './support.js';

forEachBackend('dashboard toNodeHandler', (ctx) => {
  let server: MountedServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  /** Serves `dashboard` through toNodeHandler, with an optional `next` that answers 299. */
  async function serve(dashboard: QueueDashboard, options: { withNext?: boolean } = {}) {
    const handler = toNodeHandler(dashboard);
    server = await listen(
      createServer((req, res) => {
        const next = (err?: unknown) =>
          res.writeHead(err ? 598 : 299).end(err instanceof Error ? `Error: ${err.message}` : 'next');
        void handler(req, res, options.withNext ? next : undefined);
      }),
    );
    return server.origin;
  }

  /** A dashboard whose GET answers the URL it received. */
  function urlEcho(): QueueDashboard {
    const { dashboard } = dashboardClient(ctx.queue);
    return { ...dashboard, GET: async (request) => Response.json({ url: request.url, method: request.method }) };
  }

  it.each([
    ['a plain Host', 'dashboard.test:8080', `${BASE_PATH}/api/jobs?status=failed`, 'http://dashboard.test:8080'],
    ['an IPv6 Host', '[::1]:3000', `${BASE_PATH}/api/jobs`, 'http://[::1]:3000'],
    ['a Host that would move the path', 'evil.test/admin#', `${BASE_PATH}/api/jobs`, 'http://localhost'],
    ['a path starting with //', 'dashboard.test', `//evil.test${BASE_PATH}/api/jobs`, 'http://dashboard.test'],
  ])('builds the URL from %s and the path as sent', async (_, host, path, origin) => {
    const base = await serve(urlEcho());
    const reply = await send(base, path, { headers: { Host: host } });
    expect(reply.json()).toEqual({ url: origin + path, method: 'GET' });
    expect(new URL(reply.json().url).pathname).toBe(path.split('?')[0]);
  });

  it('answers HEAD with the GET route’s status and headers, without a body', async () => {
    const base = await serve(dashboardClient(ctx.queue).dashboard);
    const reply = await send(base, BASE_PATH, { method: 'HEAD' });
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(reply.text).toBe('');
  });

  it('answers another method with 405 and Allow, or passes it to next', async () => {
    const { dashboard } = dashboardClient(ctx.queue);
    const alone = await serve(dashboard);
    const reply = await send(alone, `${BASE_PATH}/api/jobs`, { method: 'PUT' });
    expect([reply.status, reply.headers.allow]).toEqual([405, 'GET, HEAD, POST']);
    await server?.close();
    const mounted = await serve(dashboard, { withNext: true });
    expect((await send(mounted, `${BASE_PATH}/api/jobs`, { method: 'DELETE' })).status).toBe(299);
  });

  it('keeps each Set-Cookie header apart', async () => {
    const { dashboard } = dashboardClient(ctx.queue);
    const headers = new Headers([
      ['set-cookie', 'a=1; Path=/'],
      ['set-cookie', 'b=2, c; Path=/'],
    ]);
    const base = await serve({ ...dashboard, GET: async () => new Response('x', { headers }) });
    expect((await send(base, BASE_PATH)).headers['set-cookie']).toEqual(['a=1; Path=/', 'b=2, c; Path=/']);
  });

  it('answers 500 when the handler throws, or passes the error to next', async () => {
    const { dashboard } = dashboardClient(ctx.queue);
    const failing = { ...dashboard, GET: () => Promise.reject(new Error('boom')) };
    expect((await send(await serve(failing), BASE_PATH)).status).toBe(500);
    await server?.close();
    const reply = await send(await serve(failing, { withNext: true }), BASE_PATH);
    expect([reply.status, reply.text]).toEqual([598, 'Error: boom']);
  });
});
