/**
 * The web side `queue-cli init` writes per framework: the cron trigger route (a bearer
 * CRON_SECRET check, SPEC §5.4) and the dashboard mount (Basic authentication against
 * QUEUE_DASHBOARD_PASSWORD, since the dashboard has no login of its own, SPEC §5.3).
 */
import type { TemplateOptions } from './templates.js';

const NEXT_HEAD = `export const runtime = 'nodejs'; // pg and ioredis need Node.js
export const dynamic = 'force-dynamic';
`;

/** app/api/queue/process/route.ts: one batch per call, for a platform without long-running processes. */
export const nextProcessRoute = (o: TemplateOptions) => `import { isCronRequest } from '${o.queueImport}/auth';
import { handlers } from '${o.queueImport}/handlers';
import { queue } from '${o.queueImport}/queue';

${NEXT_HEAD}
// Keep one batch well inside the platform's function time limit.
const processor = queue.createProcessor(handlers, { batchSize: 10, concurrency: 5 });

/** Processes one batch. Your scheduler calls it with \`Authorization: Bearer <CRON_SECRET>\`. */
export async function GET(request: Request): Promise<Response> {
  if (!isCronRequest(request.headers.get('authorization'))) return new Response('Unauthorized', { status: 401 });
  return Response.json({ processed: await processor.start() });
}

export const POST = GET;
`;

/** app/api/queue/cron/route.ts: the cron trigger route. */
export const nextCronRoute = (o: TemplateOptions) => `import { isCronRequest } from '${o.queueImport}/auth';
import { runMaintenance } from '${o.queueImport}/maintenance';

${NEXT_HEAD}
/** Enqueues due cron schedules and runs the supervisor once. Needs \`Authorization: Bearer <CRON_SECRET>\`. */
export async function GET(request: Request): Promise<Response> {
  if (!isCronRequest(request.headers.get('authorization'))) return new Response('Unauthorized', { status: 401 });
  return Response.json(await runMaintenance());
}

export const POST = GET;
`;

/** app/admin/jobs/[[...path]]/route.ts: the dashboard. */
export const nextDashboardRoute = (
  o: TemplateOptions,
) => `import { DASHBOARD_CHALLENGE, isDashboardRequest } from '${o.queueImport}/auth';
import { dashboard } from '${o.queueImport}/dashboard';

${NEXT_HEAD}
export async function GET(request: Request): Promise<Response> {
  if (!isDashboardRequest(request.headers.get('authorization'))) return new Response('Unauthorized', DASHBOARD_CHALLENGE);
  return dashboard.GET(request);
}

export async function POST(request: Request): Promise<Response> {
  if (!isDashboardRequest(request.headers.get('authorization'))) return new Response('Unauthorized', DASHBOARD_CHALLENGE);
  return dashboard.POST(request);
}
`;

const SERVER_IMPORTS = (
  o: TemplateOptions,
) => `import { DASHBOARD_CHALLENGE, isCronRequest, isDashboardRequest } from './auth${o.ext}';
import { DASHBOARD_PATH, dashboard } from './dashboard${o.ext}';
import { runMaintenance } from './maintenance${o.ext}';`;

export const expressRoutes = (
  o: TemplateOptions,
) => `import { Router, type NextFunction, type Request, type Response } from 'express';
${SERVER_IMPORTS(o)}
import { sendResponse, toFetchRequest } from './fetch-adapter${o.ext}';

/** The cron trigger route and the dashboard: \`app.use(queueRoutes)\`. */
export const queueRoutes = Router();

async function cron(req: Request, res: Response, next: NextFunction): Promise<void> {
  if (!isCronRequest(req.headers.authorization)) {
    res.status(401).send('Unauthorized');
    return;
  }
  try {
    res.json(await runMaintenance());
  } catch (err) {
    next(err);
  }
}
queueRoutes.get('/api/queue/cron', cron);
queueRoutes.post('/api/queue/cron', cron);

queueRoutes.use(DASHBOARD_PATH, async (req: Request, res: Response, next: NextFunction) => {
  if (!isDashboardRequest(req.headers.authorization)) {
    res.status(DASHBOARD_CHALLENGE.status).set(DASHBOARD_CHALLENGE.headers).send('Unauthorized');
    return;
  }
  const handle = req.method === 'GET' ? dashboard.GET : req.method === 'POST' ? dashboard.POST : undefined;
  // originalUrl keeps the mount path, which the dashboard's basePath includes.
  const request = toFetchRequest(req.method, req.originalUrl, req.headers);
  if (!handle || !request) {
    next();
    return;
  }
  try {
    await sendResponse(res, await handle(request));
  } catch (err) {
    next(err);
  }
});
`;

export const honoRoutes = (o: TemplateOptions) => `import { Hono, type Context } from 'hono';
${SERVER_IMPORTS(o)}

/** The cron trigger route and the dashboard: \`app.route('/', queueRoutes)\`. */
export const queueRoutes = new Hono();

async function cron(c: Context): Promise<Response> {
  if (!isCronRequest(c.req.header('authorization'))) return c.text('Unauthorized', 401);
  return c.json(await runMaintenance());
}
queueRoutes.get('/api/queue/cron', cron);
queueRoutes.post('/api/queue/cron', cron);

const serve = (handle: (request: Request) => Promise<Response>) => (c: Context) =>
  isDashboardRequest(c.req.header('authorization')) ? handle(c.req.raw) : new Response('Unauthorized', DASHBOARD_CHALLENGE);
queueRoutes.get(DASHBOARD_PATH, serve(dashboard.GET));
queueRoutes.get(\`\${DASHBOARD_PATH}/*\`, serve(dashboard.GET));
queueRoutes.post(\`\${DASHBOARD_PATH}/*\`, serve(dashboard.POST));
`;

export const fastifyRoutes = (
  o: TemplateOptions,
) => `import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
${SERVER_IMPORTS(o)}
import { toFetchRequest } from './fetch-adapter${o.ext}';

/** The cron trigger route and the dashboard, as a plugin: \`app.register(queueRoutes)\`. */
export async function queueRoutes(app: FastifyInstance): Promise<void> {
  const cron = async (request: FastifyRequest, reply: FastifyReply) => {
    if (!isCronRequest(request.headers.authorization)) return reply.code(401).send('Unauthorized');
    return reply.send(await runMaintenance());
  };
  app.route({ method: ['GET', 'POST'], url: '/api/queue/cron', handler: cron });

  const serve = async (request: FastifyRequest, reply: FastifyReply) => {
    if (!isDashboardRequest(request.headers.authorization)) {
      return reply.code(DASHBOARD_CHALLENGE.status).headers(DASHBOARD_CHALLENGE.headers).send('Unauthorized');
    }
    const fetchRequest = toFetchRequest(request.method, request.url, request.headers);
    if (!fetchRequest) return reply.code(400).send();
    const response = await (request.method === 'GET' ? dashboard.GET : dashboard.POST)(fetchRequest);
    return reply
      .code(response.status)
      .headers(Object.fromEntries(response.headers))
      .send(Buffer.from(await response.arrayBuffer()));
  };
  app.route({ method: ['GET', 'POST'], url: DASHBOARD_PATH, handler: serve });
  app.route({ method: ['GET', 'POST'], url: \`\${DASHBOARD_PATH}/*\`, handler: serve });
}
`;

export const nodeRoutes = (o: TemplateOptions) => `import type { IncomingMessage, ServerResponse } from 'node:http';
${SERVER_IMPORTS(o)}
import { sendResponse, toFetchRequest } from './fetch-adapter${o.ext}';

/**
 * Serves the cron trigger route and the dashboard from a node:http server; resolves false for
 * any other path, which the caller then answers.
 */
export async function handleQueueRequest(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
  const path = req.url ?? '';
  const pathname = path.split('?')[0];
  if (pathname === '/api/queue/cron') {
    if (!isCronRequest(req.headers.authorization)) res.writeHead(401).end('Unauthorized');
    else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(await runMaintenance()));
    return true;
  }
  if (pathname !== DASHBOARD_PATH && !pathname?.startsWith(\`\${DASHBOARD_PATH}/\`)) return false;
  if (!isDashboardRequest(req.headers.authorization)) {
    res.writeHead(DASHBOARD_CHALLENGE.status, DASHBOARD_CHALLENGE.headers).end('Unauthorized');
    return true;
  }
  const handle = req.method === 'GET' ? dashboard.GET : req.method === 'POST' ? dashboard.POST : undefined;
  const request = toFetchRequest(req.method ?? 'GET', path, req.headers);
  if (!handle || !request) res.writeHead(request ? 405 : 400).end();
  else await sendResponse(res, await handle(request));
  return true;
}
`;
