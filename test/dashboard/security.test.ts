/**
 * The dashboard's defences (DETAILS "Dashboard HTTP API"): no cross-origin browser POSTs, a strict
 * CSP with a per-response nonce, nosniff and no-referrer on every response, and a page that
 * carries no job data and loads nothing from elsewhere.
 */
import { request as httpRequest } from 'node:http';
import type { QueueDashboard } from '../../src/dashboard/index.js';
import { afterEach, expect, it } from 'vitest';
import { forEachBackend, type BackendContext } from '../helpers/backends.js';
import {
  BASE_PATH,
  dashboardClient,
  HOST,
  ORIGIN,
  read,
  seedJobsInEveryStatus,
  nodeHandlerWith,
  serveDashboard,
  toFetchRequestResolvingPath,
} from './support.js';

/** [case, headers, origin of the request URL the adapter built]. */
const CROSS_ORIGIN_REQUESTS: [string, Record<string, string>, string][] = [
  ['another origin', { Host: HOST, Origin: 'http://evil.test' }, ORIGIN],
  ['another port of the same host', { Host: HOST, Origin: 'http://dashboard.test:8080' }, ORIGIN],
  ['an opaque origin', { Host: HOST, Origin: 'null' }, ORIGIN],
  ['a cross-site fetch', { Host: HOST, 'Sec-Fetch-Site': 'cross-site', Origin: 'http://evil.test' }, ORIGIN],
  [
    'a same-site fetch from a sibling host',
    { Host: HOST, 'Sec-Fetch-Site': 'same-site', Origin: 'http://other.dashboard.test' },
    ORIGIN,
  ],
  // A form on evil.test posting to http://dashboard.test//evil.test/admin/jobs/...: an adapter
  // resolving that path against a base URL hands over a URL whose origin is the attacker's.
  [
    'a cross-site form whose path gave the URL its origin',
    { Host: HOST, 'Sec-Fetch-Site': 'cross-site', Origin: 'http://evil.test' },
    'http://evil.test',
  ],
  [
    'an older browser whose path gave the URL its origin',
    { Host: HOST, Origin: 'http://evil.test' },
    'http://evil.test',
  ],
];

/** Seeds a job in every status, then POSTs cancel (pending), retry (failed) and process. */
async function postAll(ctx: BackendContext, headers: Record<string, string>, urlOrigin: string) {
  const seeded = await seedJobsInEveryStatus(ctx.queue);
  const before = await ctx.queue.getAllJobs();
  const handled: string[] = [];
  const handler = (jobType: string) => async () => void handled.push(jobType);
  const { dashboard } = dashboardClient(ctx.queue, {
    jobHandlers: { 'pending-job': handler('pending-job'), 'failed-job': handler('failed-job') },
  });
  const responses: ({ path: string } & Awaited<ReturnType<typeof read>>)[] = [];
  for (const path of [`/api/jobs/${seeded.pending}/cancel`, `/api/jobs/${seeded.failed}/retry`, '/api/process']) {
    const request = new Request(urlOrigin + BASE_PATH + path, { method: 'POST', headers });
    responses.push({ path, ...(await read(await dashboard.POST(request))) });
  }
  return { seeded, before, handled, responses };
}

forEachBackend('dashboard CSRF defence', (ctx) => {
  it.each(CROSS_ORIGIN_REQUESTS)(
    'refuses a POST from %s with 403 and changes nothing',
    async (_, headers, urlOrigin) => {
      const { responses, before, handled } = await postAll(ctx, headers, urlOrigin);
      for (const { path, status, body } of responses) {
        expect(status, path).toBe(403);
        expect(body.error).toMatch(
          /^Cross-origin request refused \(.+\): POST routes accept same-origin requests only$/,
        );
      }
      expect(await ctx.queue.getAllJobs()).toEqual(before);
      expect(handled).toEqual([]);
    },
  );

  it.each([
    ['without Origin or Sec-Fetch-Site (curl, a scheduler)', {}],
    ['without Origin or Sec-Fetch-Site, with a Host', { Host: HOST }],
    ['marked Sec-Fetch-Site: same-origin', { Host: HOST, 'Sec-Fetch-Site': 'same-origin', Origin: ORIGIN }],
    [
      'marked Sec-Fetch-Site: same-origin, its Origin rewritten by a proxy',
      { Host: HOST, 'Sec-Fetch-Site': 'same-origin', Origin: 'https://public.example.com' },
    ],
    ['marked Sec-Fetch-Site: none (the user navigated)', { Host: HOST, 'Sec-Fetch-Site': 'none' }],
    ['whose Origin matches the Host header (an older browser)', { Host: HOST, Origin: ORIGIN }],
  ])('accepts a POST %s: cancel, retry and process all run', async (_, headers) => {
    // The URL's origin is an adapter's fixed placeholder: the rule reads Host, not the URL.
    const { responses, seeded, handled } = await postAll(ctx, headers, 'http://localhost');
    expect(responses.map(({ status }) => status)).toEqual([200, 200, 200]);
    expect(responses[2]!.body).toEqual({ processed: 1 });
    expect(await ctx.queue.getJob(seeded.pending)).toMatchObject({ status: 'cancelled' });
    // Retried, then run by the batch.
    expect(await ctx.queue.getJob(seeded.failed)).toMatchObject({ status: 'completed' });
    expect(handled).toEqual(['failed-job']);
  });
});

forEachBackend('dashboard read-only', (ctx) => {
  it('refuses every POST route with 403 and changes nothing, even from the same origin', async () => {
    const seeded = await seedJobsInEveryStatus(ctx.queue);
    const before = await ctx.queue.getAllJobs();
    const handled: string[] = [];
    const client = dashboardClient(ctx.queue, {
      readOnly: true,
      jobHandlers: { 'pending-job': async () => void handled.push('pending-job') },
    });
    for (const path of [`/api/jobs/${seeded.pending}/cancel`, `/api/jobs/${seeded.failed}/retry`, '/api/process']) {
      const { status, body } = await read(await client.post(path));
      expect(status, path).toBe(403);
      expect(body.error, path).toBe('This dashboard is read-only (readOnly: true): it takes no action');
    }
    expect(await ctx.queue.getAllJobs()).toEqual(before);
    expect(handled).toEqual([]);
  });

  it('still answers the read routes, and tells the page to show no action', async () => {
    const seeded = await seedJobsInEveryStatus(ctx.queue);
    const client = dashboardClient(ctx.queue, { readOnly: true });
    expect((await read(await client.get(`/api/jobs/${seeded.failed}`))).body.job.id).toBe(seeded.failed);
    expect(await (await client.get('/')).text()).toContain('data-read-only="true"');
    expect(await (await dashboardClient(ctx.queue).get('/')).text()).toContain('data-read-only="false"');
  });
});

/** A raw HTTP/1.1 POST: node's client sends the path exactly as given, '//' included. */
function rawPost(port: number, path: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, method: 'POST', headers }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

forEachBackend('dashboard CSRF defence behind a node:http server', (ctx) => {
  const servers: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) await server.close();
  });

  const serve = async (adapt?: (dashboard: QueueDashboard) => Parameters<typeof serveDashboard>[2]) => {
    const dashboard = dashboardClient(ctx.queue).dashboard;
    const server = await serveDashboard(dashboard, BASE_PATH, adapt?.(dashboard));
    servers.push(server);
    return server;
  };
  const attack = {
    'Sec-Fetch-Site': 'cross-site',
    Origin: 'http://evil.test',
    'Content-Type': 'application/x-www-form-urlencoded',
  };

  it.each([
    ['the library adapter (toNodeHandler)', undefined, 404],
    [
      'an adapter resolving the path against a base URL',
      (dashboard: QueueDashboard) => nodeHandlerWith(dashboard, toFetchRequestResolvingPath),
      403,
    ],
  ] as const)('a cross-site form posting to //evil.test/... through %s cancels nothing', async (_, adapt, expected) => {
    const id = await ctx.queue.addJob({ jobType: 'email', payload: {} });
    const server = await serve(adapt);
    expect(await rawPost(server.port, `//evil.test${BASE_PATH}/api/jobs/${id}/cancel`, attack)).toBe(expected);
    expect(await ctx.queue.getJob(id)).toMatchObject({ status: 'pending' });
  });

  it('accepts a POST with neither Origin nor Sec-Fetch-Site, as curl or a scheduler sends it', async () => {
    const id = await ctx.queue.addJob({ jobType: 'email', payload: {} });
    const server = await serve();
    expect(await rawPost(server.port, `${BASE_PATH}/api/jobs/${id}/cancel`, {})).toBe(200);
    expect(await ctx.queue.getJob(id)).toMatchObject({ status: 'cancelled' });
  });
});

forEachBackend('dashboard security headers', (ctx) => {
  const cspOf = (response: Response) => response.headers.get('content-security-policy') ?? '';

  it('serves the page under a CSP whose nonce is the one on its only script and style', async () => {
    const response = await dashboardClient(ctx.queue).get('/');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = cspOf(response);
    const nonce = /script-src 'nonce-([A-Za-z0-9+/=]+)'/.exec(csp)?.[1];
    expect(nonce).toBeDefined();
    expect(csp).toBe(
      `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; connect-src 'self'; ` +
        "img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    );
    const html = await response.text();
    expect(html.match(/<script\b[^>]*>/g)).toEqual([`<script nonce="${nonce}">`]);
    expect(html.match(/<style\b[^>]*>/g)).toEqual([`<style nonce="${nonce}">`]);
    expect(html).not.toMatch(/\sstyle=|\son[a-z]+=/i); // no inline style or handler attributes the CSP would block
  });

  it('uses a fresh nonce for every page response', async () => {
    const client = dashboardClient(ctx.queue);
    const [a, b] = await Promise.all([client.get('/'), client.get('/')]);
    expect(cspOf(a)).not.toBe(cspOf(b));
  });

  it('sends nosniff, no-referrer, no-store and a CSP on the page and every JSON response', async () => {
    const id = await ctx.queue.addJob({ jobType: 'email', payload: {} });
    const client = dashboardClient(ctx.queue);
    const responses = [
      await client.get('/'),
      await client.get('/api/jobs'),
      await client.get(`/api/jobs/${id}`),
      await client.get('/api/jobs/nope'),
      await client.get('/unknown'),
      await client.post(`/api/jobs/${id}/cancel`),
      await client.post('/api/process', { Origin: 'http://evil.test' }),
    ];
    for (const response of responses) {
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('referrer-policy')).toBe('no-referrer');
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(cspOf(response)).toContain("default-src 'none'");
      expect(cspOf(response)).toContain("frame-ancestors 'none'");
    }
    for (const response of responses.slice(1)) {
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    }
  });

  it('serves a self-contained page that holds no job data', async () => {
    await ctx.queue.addJob({ jobType: 'xss', payload: { html: '<script>alert(1)</script>' } });
    const html = await (await dashboardClient(ctx.queue).get('/')).text();
    expect(html).not.toContain('alert(1)');
    expect(html).not.toMatch(/\b(src|href)="(https?:)?\/\//); // no external script, style, font or image
    expect(html).not.toMatch(/@import|url\(/);
    expect(html).toContain('data-base-path="/admin/jobs"');
  });

  it('escapes basePath in the page', async () => {
    const response = await dashboardClient(ctx.queue, { basePath: "/x&y'z" }).get('/');
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('data-base-path="/x&#38;y&#39;z"');
  });
});
