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

/** The scaffold's imports of a server's routes file; Fastify's plugin takes its path from the dashboard. */
const SERVER_IMPORTS = (
  o: TemplateOptions,
  fromDashboard = 'DASHBOARD_PATH, dashboard',
) => `import { DASHBOARD_CHALLENGE, isCronRequest, isDashboardRequest } from './auth${o.ext}';
import { ${fromDashboard} } from './dashboard${o.ext}';
import { runMaintenance } from './maintenance${o.ext}';`;

export const expressRoutes = (
  o: TemplateOptions,
) => `import { Router, type NextFunction, type Request, type Response } from 'express';
import { toNodeHandler } from 'queuedev/dashboard';
${SERVER_IMPORTS(o)}

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

function requireDashboardLogin(req: Request, res: Response, next: NextFunction): void {
  if (isDashboardRequest(req.headers.authorization)) next();
  else res.status(DASHBOARD_CHALLENGE.status).set(DASHBOARD_CHALLENGE.headers).send('Unauthorized');
}
// toNodeHandler reads req.originalUrl, which keeps the mount path the dashboard's basePath includes.
queueRoutes.use(DASHBOARD_PATH, requireDashboardLogin, toNodeHandler(dashboard));
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
import { fastifyDashboard } from 'queuedev/dashboard';
${SERVER_IMPORTS(o, 'dashboard')}

/** The cron trigger route and the dashboard, as a plugin: \`app.register(queueRoutes)\`. */
export async function queueRoutes(app: FastifyInstance): Promise<void> {
  const cron = async (request: FastifyRequest, reply: FastifyReply) => {
    if (!isCronRequest(request.headers.authorization)) return reply.code(401).send('Unauthorized');
    return reply.send(await runMaintenance());
  };
  app.route({ method: ['GET', 'POST'], url: '/api/queue/cron', handler: cron });

  // A scope of its own, so the login check applies to the dashboard's routes only.
  await app.register(async (scope) => {
    scope.addHook('onRequest', async (request, reply) => {
      if (!isDashboardRequest(request.headers.authorization)) {
        return reply.code(DASHBOARD_CHALLENGE.status).headers(DASHBOARD_CHALLENGE.headers).send('Unauthorized');
      }
    });
    await scope.register(fastifyDashboard(dashboard));
  });
}
`;

export const nodeRoutes = (o: TemplateOptions) => `import type { IncomingMessage, ServerResponse } from 'node:http';
import { toNodeHandler } from 'queuedev/dashboard';
${SERVER_IMPORTS(o)}

const serveDashboard = toNodeHandler(dashboard);

/**
 * Serves the cron trigger route and the dashboard from a node:http server; resolves false for
 * any other path, which the caller then answers.
 */
export async function handleQueueRequest(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
  const pathname = (req.url ?? '').split('?')[0];
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
  await serveDashboard(req, res);
  return true;
}
`;
