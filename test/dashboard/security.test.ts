/**
 * The dashboard's defences (DETAILS "Dashboard HTTP API"): same-origin POSTs only, a strict
 * CSP with a per-response nonce, nosniff and no-referrer on every response, and a page that
 * carries no job data and loads nothing from elsewhere.
 */
import { expect, it } from 'vitest';
import { forEachBackend } from '../helpers/backends.js';
import { dashboardClient, ORIGIN, read, seedJobsInEveryStatus } from './support.js';

const CROSS_ORIGIN_REQUESTS: [string, Record<string, string>][] = [
  ['another origin', { Origin: 'http://evil.test' }],
  ['another port of the same host', { Origin: 'http://dashboard.test:8080' }],
  ['another scheme', { Origin: 'https://dashboard.test' }],
  ['an opaque origin', { Origin: 'null' }],
  ['a cross-site fetch', { 'Sec-Fetch-Site': 'cross-site', Origin: 'http://evil.test' }],
  ['a same-site fetch from a sibling host', { 'Sec-Fetch-Site': 'same-site', Origin: 'http://other.dashboard.test' }],
  ['neither Origin nor Sec-Fetch-Site', {}],
];

forEachBackend('dashboard CSRF defence', (ctx) => {
  it.each(CROSS_ORIGIN_REQUESTS)('refuses a POST from %s with 403 and changes nothing', async (_, headers) => {
    const seeded = await seedJobsInEveryStatus(ctx.queue);
    let handled = 0;
    const client = dashboardClient(ctx.queue, { jobHandlers: { 'pending-job': async () => void handled++ } });
    const before = await ctx.queue.getAllJobs();

    for (const path of [`/api/jobs/${seeded.pending}/cancel`, `/api/jobs/${seeded.failed}/retry`, '/api/process']) {
      const { status, body } = await read(await client.post(path, headers));
      expect(status, path).toBe(403);
      expect(body.error).toMatch(/same-origin/);
    }
    expect(await ctx.queue.getAllJobs()).toEqual(before);
    expect(handled).toBe(0);
  });

  it('accepts a POST whose Origin matches the request URL', async () => {
    const id = await ctx.queue.addJob({ jobType: 'email', payload: {} });
    const { status } = await read(await dashboardClient(ctx.queue).post(`/api/jobs/${id}/cancel`, { Origin: ORIGIN }));
    expect(status).toBe(200);
    expect(await ctx.queue.getJob(id)).toMatchObject({ status: 'cancelled' });
  });

  it('accepts a POST marked Sec-Fetch-Site: same-origin (an origin rewritten by a proxy)', async () => {
    const id = await ctx.queue.addJob({ jobType: 'email', payload: {} });
    const client = dashboardClient(ctx.queue);
    const headers = { 'Sec-Fetch-Site': 'same-origin', Origin: 'https://public.example.com' };
    expect((await client.post(`/api/jobs/${id}/cancel`, headers)).status).toBe(200);
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
