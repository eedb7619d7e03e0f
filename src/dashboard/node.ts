/**
 * The dashboard on Node.js servers that pass `IncomingMessage` and `ServerResponse` (node:http,
 * Express, Fastify, Koa): one conversion to a Fetch API Request and back, which the framework
 * adapters below share. Frameworks that speak Request/Response (Next.js, Hono) need none.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { QueueDashboard } from './index.js';

/** A Node.js request as Express and Koa extend it; the extra fields are read when present. */
type NodeRequest = IncomingMessage & {
  /** Express: the URL before a mount path was stripped from `url`. */
  originalUrl?: string;
  /** A body a parser already read from the stream (Express `req.body`). */
  body?: unknown;
};

/** `(req, res, next?)`: a node:http request listener and an Express middleware at once. */
export type NodeDashboardHandler = (
  req: IncomingMessage,
  res: ServerResponse,
  next?: (err?: unknown) => void,
) => Promise<void>;

interface FetchRequestOptions {
  /** The request path and query, mount path included. @default req.originalUrl ?? req.url */
  url?: string;
  /** A body a framework's parser already read, used when the stream is consumed. */
  parsedBody?: unknown;
}

/** A host[:port] as the Host header carries it; anything else could move the URL's path. */
const HOST = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/**
 * The Fetch API Request the dashboard reads for a Node.js request, or null when the request
 * target is not a path (`http://host/...` or `*`).
 *
 * The URL is the scheme, the Host header (when it is a plain host[:port], else `localhost`)
 * and the original path concatenated, never resolved: a path `//attacker.example/...` stays a
 * path. Every header is copied, Host included, for the same-origin check of POST routes. A
 * POST body is streamed, not buffered: the route reading it stops at its own limit.
 * @internal
 */
export function toFetchRequest(req: NodeRequest, options: FetchRequestOptions = {}): Request | null {
  const path = options.url ?? req.originalUrl ?? req.url ?? '';
  if (!path.startsWith('/')) return null;
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) value.forEach((v) => headers.append(name, v));
    else if (value !== undefined) headers.set(name, value);
  }
  const host = req.headers.host !== undefined && HOST.test(req.headers.host) ? req.headers.host : 'localhost';
  const scheme = (req.socket as { encrypted?: boolean } | undefined)?.encrypted ? 'https' : 'http';
  const method = req.method === 'HEAD' ? 'GET' : (req.method ?? 'GET');
  const init: RequestInit & { duplex?: 'half' } = { method, headers };
  if (method !== 'GET') {
    const parsed = options.parsedBody ?? req.body;
    if (req.readableEnded && parsed !== undefined) {
      init.body = serializeParsedBody(parsed);
      // They described the bytes on the wire, which the parser decoded and consumed.
      for (const name of ['content-length', 'transfer-encoding', 'content-encoding']) headers.delete(name);
    } else {
      init.body = bodyStream(req);
      init.duplex = 'half'; // a streamed body: Node's fetch requires saying so
    }
  }
  return new Request(`${scheme}://${host}${path}`, init);
}

/** A parser's result back as bytes: text and bytes as they are, anything else as JSON. */
function serializeParsedBody(parsed: unknown): string | Uint8Array<ArrayBuffer> {
  if (typeof parsed === 'string') return parsed;
  // A copy: a Buffer may be a view of a shared pool, which a Request body must not be.
  if (parsed instanceof Uint8Array) return new Uint8Array(parsed);
  return JSON.stringify(parsed);
}

function noop(): void {
  // nothing to undo before the stream has started
}

/**
 * The request's body as a web stream that reads only as fast as the route consumes it. Nothing
 * is read until the route asks: a route that never reads the body leaves it to Node.js, which
 * drains it once the response is sent. When the route stops early (a body over its limit), the
 * rest is drained and dropped rather than the socket destroyed, so the client still receives
 * the route's answer.
 */
function bodyStream(req: IncomingMessage): ReadableStream<Uint8Array> {
  let listening = false;
  let stop = noop;
  const listen = (controller: ReadableStreamDefaultController<Uint8Array>) => {
    const onData = (chunk: Buffer) => {
      controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
      if ((controller.desiredSize ?? 0) <= 0) req.pause();
    };
    const onEnd = () => {
      stop();
      controller.close();
    };
    const onError = (err: Error) => {
      stop();
      controller.error(err);
    };
    stop = () => {
      req.off('data', onData).off('end', onEnd).off('error', onError);
    };
    req.on('data', onData).on('end', onEnd).on('error', onError);
    listening = true;
  };
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (!listening) listen(controller);
        else req.resume();
      },
      cancel() {
        stop();
        req.resume();
      },
    },
    // No read ahead: pull only when the route reads.
    { highWaterMark: 0 },
  );
}

/** A response's headers for a Node.js response: each Set-Cookie kept apart, as an array. */
function headerEntries(response: Response): [string, string | string[]][] {
  const entries: [string, string | string[]][] = [...response.headers].filter(([name]) => name !== 'set-cookie');
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) entries.push(['set-cookie', cookies]);
  return entries;
}

/**
 * Writes a Fetch API Response to a Node.js response: status, every header, then the body.
 * @internal
 */
export async function sendNodeResponse(res: ServerResponse, response: Response): Promise<void> {
  const body = Buffer.from(await response.arrayBuffer());
  res.statusCode = response.status;
  for (const [name, value] of headerEntries(response)) res.setHeader(name, value);
  res.end(body);
}

/** The dashboard handler for an HTTP method, or undefined for a method it does not serve. */
function handlerFor(dashboard: QueueDashboard, method: string | undefined): QueueDashboard['GET'] | undefined {
  if (method === 'GET' || method === 'HEAD') return dashboard.GET;
  if (method === 'POST') return dashboard.POST;
  return undefined;
}

/**
 * The dashboard as a Node.js request handler: a node:http request listener, or an Express
 * middleware mounted at `basePath` (it reads `req.originalUrl`, which keeps the mount path).
 * Other methods than GET, HEAD and POST go to `next` when there is one, else get 405.
 * @example
 * // node:http
 * createServer(toNodeHandler(dashboard)).listen(3000);
 * // Express, behind your own access check
 * app.use('/admin/jobs', requireAdmin, toNodeHandler(dashboard));
 */
export function toNodeHandler(dashboard: QueueDashboard): NodeDashboardHandler {
  return async (req, res, next) => {
    const handle = handlerFor(dashboard, req.method);
    const request = handle ? toFetchRequest(req) : null;
    if (!handle || !request) {
      if (next) {
        next();
        return;
      }
      res.writeHead(handle ? 400 : 405, handle ? {} : { Allow: 'GET, HEAD, POST' }).end();
      return;
    }
    try {
      await sendNodeResponse(res, await handle(request));
    } catch (err) {
      if (next) {
        next(err);
        return;
      }
      if (!res.headersSent) res.writeHead(500);
      res.end();
    }
  };
}

/** Whether `path` (a URL path without query) is `basePath` or below it. */
function isUnder(basePath: string, path: string): boolean {
  return basePath === '/' || path === basePath || path.startsWith(`${basePath}/`);
}

/** The parts of a Koa context the Koa middleware uses. */
export interface KoaContextLike {
  req: IncomingMessage;
  originalUrl: string;
  method: string;
  request: { body?: unknown };
  status: number;
  body: unknown;
  set(field: string, value: string | string[]): void;
}

/**
 * The dashboard as a Koa middleware: it answers the requests under the dashboard's `basePath`
 * and passes every other one to `next`. A body that a body parser already read
 * (`ctx.request.body`) is handed on to the dashboard.
 * @example
 * app.use(requireAdmin); // your own check on '/admin/jobs'
 * app.use(koaDashboard(dashboard));
 */
export function koaDashboard(dashboard: QueueDashboard) {
  return async (ctx: KoaContextLike, next: () => Promise<unknown>): Promise<void> => {
    const handle = handlerFor(dashboard, ctx.method);
    // The original path: a mount (koa-mount) shortens ctx.path, never ctx.originalUrl.
    const pathname = ctx.originalUrl.split('?')[0] ?? '';
    const request =
      handle && isUnder(dashboard.basePath, pathname)
        ? toFetchRequest(ctx.req, { url: ctx.originalUrl, parsedBody: ctx.request.body })
        : null;
    if (!handle || !request) {
      await next();
      return;
    }
    const response = await handle(request);
    ctx.status = response.status;
    for (const [name, value] of headerEntries(response)) ctx.set(name, value);
    // A Buffer, even empty: Koa would turn a null body into a 204.
    ctx.body = Buffer.from(await response.arrayBuffer());
  };
}

/** The parts of a Fastify instance the Fastify plugin uses. */
export interface FastifyInstanceLike {
  removeAllContentTypeParsers(): void;
  addContentTypeParser(
    contentType: string,
    parser: (request: unknown, payload: IncomingMessage, done: (err: Error | null, body?: unknown) => void) => void,
  ): void;
  route(options: {
    method: string[];
    url: string;
    handler: (request: { raw: IncomingMessage }, reply: FastifyReplyLike) => Promise<unknown>;
  }): unknown;
}

/** The parts of a Fastify reply the Fastify plugin uses. */
export interface FastifyReplyLike {
  code(statusCode: number): FastifyReplyLike;
  header(name: string, value: string | string[]): FastifyReplyLike;
  send(payload: Buffer): FastifyReplyLike;
}

/**
 * The dashboard as a Fastify plugin: routes for GET, HEAD and POST at `basePath` and below it.
 * Inside the plugin, bodies are left unparsed for the dashboard to read with its own limit;
 * the application's parsers elsewhere are untouched (Fastify scopes them per plugin).
 * @example
 * await app.register(async (scope) => {
 *   scope.addHook('onRequest', requireAdmin); // your own check
 *   await scope.register(fastifyDashboard(dashboard));
 * });
 */
export function fastifyDashboard(dashboard: QueueDashboard) {
  // A plugin without a `done` callback returns a promise, which Fastify awaits.
  return (app: FastifyInstanceLike): Promise<void> => {
    // Hand the raw stream to the handler instead of parsing it (the plugin's scope only):
    // without removing them, the built-in JSON and text parsers would still read those bodies.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', (_request, _payload, done) => done(null));
    const handler = async (request: { raw: IncomingMessage }, reply: FastifyReplyLike) => {
      const handle = handlerFor(dashboard, request.raw.method) ?? dashboard.GET;
      const fetchRequest = toFetchRequest(request.raw, { url: request.raw.url ?? '' });
      if (!fetchRequest) return reply.code(400).send(Buffer.alloc(0));
      const response = await handle(fetchRequest);
      reply.code(response.status);
      for (const [name, value] of headerEntries(response)) reply.header(name, value);
      return reply.send(Buffer.from(await response.arrayBuffer()));
    };
    const base = dashboard.basePath === '/' ? '' : dashboard.basePath;
    app.route({ method: ['GET', 'POST'], url: base || '/', handler });
    app.route({ method: ['GET', 'POST'], url: `${base}/*`, handler });
    return Promise.resolve();
  };
}
