/**
 * What a dashboard route receives and returns. The router (index.ts) matches the path, applies
 * the rules every route shares (methods, read-only, same-origin POST), then calls the route.
 */
import { describeValue, ValidationError } from '../errors.js';
import type { ResolvedDashboardConfig } from './config.js';

export interface RouteInput {
  config: ResolvedDashboardConfig;
  /** The request's query parameters. */
  params: URLSearchParams;
  /** The route's `:id` segment, on the routes that have one; '' otherwise. */
  id: string;
  request: Request;
}

export type Route = (input: RouteInput) => Promise<Response>;

/**
 * One entry of the router's table: a path pattern relative to basePath (its first capture, if
 * any, is the `:id` segment) and the handler per method. Each view of the dashboard keeps its
 * routes in a table of its own, which index.ts joins.
 */
export interface RouteDef {
  pattern: RegExp;
  GET?: Route;
  POST?: Route;
}

/** Largest JSON body a POST route reads (an edited payload included). */
export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * The request's JSON body as an object, read up to MAX_BODY_BYTES. A body that is missing, too
 * large, not JSON or not an object is refused with a ValidationError (400) naming `body`.
 */
export async function readJsonBody(request: Request): Promise<Record<string, unknown>> {
  const declared = Number(request.headers.get('content-length'));
  if (declared > MAX_BODY_BYTES) throw tooLarge(declared);
  const text = await readBounded(request);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ValidationError('body', `Expected \`body\` to be JSON, got ${describeValue(text.slice(0, 80))}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new ValidationError('body', `Expected \`body\` to be a JSON object, got ${describeValue(value)}`);
  }
  return value as Record<string, unknown>;
}

function tooLarge(bytes: number): ValidationError {
  return new ValidationError('body', `Expected \`body\` to be at most ${MAX_BODY_BYTES} bytes, got ${bytes} or more`);
}

/** The body as text, stopping (and refusing) as soon as it passes MAX_BODY_BYTES. */
async function readBounded(request: Request): Promise<string> {
  if (!request.body) return '';
  const reader: ReadableStreamDefaultReader<Uint8Array> = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > MAX_BODY_BYTES) {
      await reader.cancel();
      throw tooLarge(total);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
