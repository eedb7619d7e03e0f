/**
 * The files `queue-cli init` writes, per framework. Each is the smallest complete version of
 * what docs/ shows (getting-started, dashboard mounting, supervisor's serverless route), and
 * each type-checks in a project that has installed queuedev and the framework, under node16
 * resolution and the strictest common compiler settings (the init tests compile every one of
 * them). Hence \`process.env['NAME']\`: \`noPropertyAccessFromIndexSignature\` refuses \`process.env.NAME\`.
 */
export type Framework = 'next' | 'express' | 'hono' | 'fastify' | 'node';
export type Backend = 'postgres' | 'redis';

export interface TemplateOptions {
  backend: Backend;
  /** Appended to relative imports: '.js' for Node.js ESM resolution, '' for bundlers. */
  ext: string;
  /** The import path of the queue folder as seen from a route file (Next.js only). */
  queueImport: string;
}

export const payloads = () => `/**
 * The job types of this application and the payload each one carries. The queue, addJob and the
 * handlers all read this map, so a wrong payload is a type error.
 */
export type JobPayloads = {
  'email.send': { to: string; subject: string; body: string };
};
`;

export const handlers = (o: TemplateOptions) => `import type { JobHandlers } from 'queuedev';
import type { JobPayloads } from './payloads${o.ext}';

/**
 * One handler per job type. Each returns when its job is done; throwing fails the attempt, and
 * the job is retried up to maxAttempts.
 */
export const handlers: JobHandlers<JobPayloads> = {
  'email.send': async (payload) => {
    // Send the mail here, with your provider's SDK or a fetch to its API, for example
    //   await mailer.send({ to: payload.to, subject: payload.subject, text: payload.body });
    // Take the handler's second argument, \`signal\`, and pass it on to that call, so a job that
    // times out stops its request.
    console.log(\`email.send: would send "\${payload.subject}" to \${payload.to}\`);
  },
};
`;

export const queue = (o: TemplateOptions) => {
  const config =
    o.backend === 'postgres'
      ? `{ databaseConfig: { connectionString: process.env['PG_QUEUE_DATABASE'] } }`
      : `{ backend: 'redis', redisConfig: { url: process.env['REDIS_URL'] } }`;
  return `import { initJobQueue, type JobQueue } from 'queuedev';
import type { JobPayloads } from './payloads${o.ext}';

// One queue per process (it holds a connection pool). The global keeps one across hot reloads.
const globalForQueue = globalThis as unknown as { jobQueue?: JobQueue<JobPayloads> };

export const queue: JobQueue<JobPayloads> = (globalForQueue.jobQueue ??= initJobQueue<JobPayloads>(${config}));
`;
};

export const auth = () => `import { createHash, timingSafeEqual } from 'node:crypto';

function same(a: string, b: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(a), digest(b));
}

/** Whether an Authorization header is \`Bearer <CRON_SECRET>\`; always false while CRON_SECRET is unset. */
export function isCronRequest(authorization: string | null | undefined): boolean {
  const secret = process.env['CRON_SECRET'];
  return Boolean(secret) && typeof authorization === 'string' && same(authorization, \`Bearer \${secret}\`);
}

/** Basic authentication against QUEUE_DASHBOARD_PASSWORD (any user name); closed while it is unset. */
export function isDashboardRequest(authorization: string | null | undefined): boolean {
  const password = process.env['QUEUE_DASHBOARD_PASSWORD'];
  if (!password || !authorization?.startsWith('Basic ')) return false;
  const decoded = Buffer.from(authorization.slice('Basic '.length), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon >= 0 && same(decoded.slice(colon + 1), password);
}

/** The answer to a dashboard request without the password: the browser asks for it. */
export const DASHBOARD_CHALLENGE = { status: 401, headers: { 'www-authenticate': 'Basic realm="jobs"' } };
`;

export const dashboard = (o: TemplateOptions) => `import { createQueueDashboard } from 'queuedev/dashboard';
import { handlers } from './handlers${o.ext}';
import { queue } from './queue${o.ext}';

export const DASHBOARD_PATH = '/admin/jobs';

export const dashboard = createQueueDashboard({ jobQueue: queue, jobHandlers: handlers, basePath: DASHBOARD_PATH });
`;

/** Maintenance for a scheduler to call: due cron schedules, stuck jobs, old jobs and events. */
export const maintenance = (o: TemplateOptions) => `import { queue } from './queue${o.ext}';

const supervisor = queue.createSupervisor();

/** One maintenance pass, for the cron trigger route. */
export async function runMaintenance() {
  const enqueued = await queue.enqueueDueCronJobs();
  return { enqueued, ...(await supervisor.start()) };
}
`;

/** A long-running worker: processes jobs and runs maintenance until SIGTERM or SIGINT. */
export const worker = (o: TemplateOptions) => `import { handlers } from './handlers${o.ext}';
import { queue } from './queue${o.ext}';

const processor = queue.createProcessor(handlers, { concurrency: 5 });
const supervisor = queue.createSupervisor();

processor.startInBackground();
supervisor.startInBackground();

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    // Stops the processor and supervisor, waits for running handlers, closes the connections.
    void queue.close().then(() => process.exit(0));
  });
}
`;
