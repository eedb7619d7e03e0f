/**
 * Response building and request checks shared by the dashboard's routes: security headers on
 * every response, JSON bodies (dates become ISO strings through Date.toJSON), and the
 * same-origin rule for POST requests.
 */
import { randomBytes } from 'node:crypto';

/** A fresh CSP nonce: 128 random bits, as CSP Level 3 recommends at least. */
export function createNonce(): string {
  return randomBytes(16).toString('base64');
}

/**
 * The page's policy: only the inline script and style carrying this response's nonce run,
 * fetches go to the same origin, and nothing may frame the page. Without a nonce (JSON
 * responses) nothing at all may load.
 */
export function contentSecurityPolicy(nonce: string | null): string {
  const directives = ["default-src 'none'"];
  if (nonce !== null) {
    directives.push(
      `script-src 'nonce-${nonce}'`,
      `style-src 'nonce-${nonce}'`,
      "connect-src 'self'",
      "img-src 'self' data:",
    );
  }
  directives.push("base-uri 'none'", "form-action 'self'", "frame-ancestors 'none'");
  return directives.join('; ');
}

function securityHeaders(contentType: string, nonce: string | null): Headers {
  return new Headers({
    'Content-Type': contentType,
    'Content-Security-Policy': contentSecurityPolicy(nonce),
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    // Job data is live and may be sensitive: never keep it in a shared or browser cache.
    'Cache-Control': 'no-store',
  });
}

export function jsonResponse(status: number, body: unknown, extraHeaders?: Record<string, string>): Response {
  const headers = securityHeaders('application/json; charset=utf-8', null);
  for (const [name, value] of Object.entries(extraHeaders ?? {})) headers.set(name, value);
  return new Response(JSON.stringify(body), { status, headers });
}

export function htmlResponse(html: string, nonce: string): Response {
  return new Response(html, { status: 200, headers: securityHeaders('text/html; charset=utf-8', nonce) });
}

/**
 * CSRF defence for state-changing routes: a browser sends `Sec-Fetch-Site` and `Origin` on a
 * POST and a page cannot forge either, so a request another site triggers fails both checks.
 * A request carrying neither (e.g. a script without an Origin) is refused too.
 */
export function isSameOrigin(request: Request, url: URL): boolean {
  if (request.headers.get('sec-fetch-site') === 'same-origin') return true;
  const origin = request.headers.get('origin');
  return origin !== null && origin === url.origin;
}

/** Renders text for an HTML attribute value or element content. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
