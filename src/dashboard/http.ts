/**
 * Response building and request checks shared by the dashboard's routes: security headers on
 * every response, JSON bodies (dates become ISO strings through Date.toJSON), and the
 * cross-origin rule for POST requests.
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
 * CSRF defence for the state-changing routes, the rule of Go's `http.CrossOriginProtection`.
 * Returns why a request is refused, or null when it may proceed.
 * - `Sec-Fetch-Site` (sent by every current browser, and not settable by a page): only
 *   `same-origin` and `none` (the user's own navigation) pass.
 * - Otherwise `Origin` (older browsers): its host[:port] must equal the `Host` header, which
 *   the browser sets to the server it talks to. The scheme is not compared (Host has none),
 *   as in Go: only a browser without `Sec-Fetch-Site` reaches this check.
 * - A request with neither header does not come from a browser (curl, a scheduler) and passes:
 *   the host application's check on the mount path guards it (SPEC §5.3).
 * The request URL plays no part: adapters build it from the request line, where a path such
 * as `//attacker.example/...` would choose its origin.
 */
export function crossOriginRefusal(headers: Headers): string | null {
  // Empty values count as absent, as in Go (Header.Get returns "" for both).
  const site = headers.get('sec-fetch-site');
  if (site) {
    return site === 'same-origin' || site === 'none' ? null : `Sec-Fetch-Site is ${site}`;
  }
  const origin = headers.get('origin');
  if (!origin) return null;
  const host = headers.get('host');
  if (host !== null && hostOfOrigin(origin) === host.toLowerCase()) return null;
  return `Origin ${origin} does not match Host ${host ?? '(absent)'}`;
}

/** An Origin header's host[:port], lowercase; null for `null` and other non-URLs. */
function hostOfOrigin(origin: string): string | null {
  try {
    return new URL(origin).host || null;
  } catch {
    return null;
  }
}

/** Renders text for an HTML attribute value or element content. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
