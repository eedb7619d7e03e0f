/**
 * The HTTP answer for an error a dashboard route threw. Checked by `code`, not class: a queue
 * from a separately bundled copy of the library throws its own error classes.
 */
import { jsonResponse } from './http.js';

/** Codes of errors the store causes, not the request: the service is unavailable until fixed. */
const UNAVAILABLE_CODES = new Set(['STORE_UNAVAILABLE', 'SCHEMA_NOT_MIGRATED']);

export function errorResponse(err: unknown): Response {
  const code = (err as { code?: unknown } | null)?.code;
  const message = err instanceof Error ? err.message : String(err);
  if (code === 'VALIDATION_FAILED') return jsonResponse(400, { error: message });
  if (code === 'NOT_FOUND') return jsonResponse(404, { error: message });
  // 503 with the typed message (e.g. the migrate command to run), which the page shows.
  // A queue used after close() is the host application's bug, not an outage: 500.
  const closed = (err as { reason?: unknown }).reason === 'closed';
  if (typeof code === 'string' && UNAVAILABLE_CODES.has(code) && !closed)
    return jsonResponse(503, { error: message, code });
  return jsonResponse(500, { error: message });
}
