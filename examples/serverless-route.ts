/**
 * Serverless use: route handlers in the style of web frameworks that take a standard Request
 * and return a Response. A scheduler calls `POST /api/jobs/process` every minute; each call
 * processes one batch and returns. Jobs are added elsewhere with `queue.addJob`.
 */
import { initJobQueue } from 'queuedev';

type Payloads = {
  'email.send': { to: string; subject: string };
};

// Module scope: created once per warm instance, not once per request (each queue has a pool).
const queue = initJobQueue<Payloads>({
  databaseConfig: { connectionString: process.env.PG_QUEUE_DATABASE },
});

const processor = queue.createProcessor(
  {
    'email.send': async (payload, signal) => {
      await fetch('https://mail.example.com/send', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(payload),
        signal,
      });
    },
  },
  // Keep one batch well inside the platform's function time limit.
  { batchSize: 10, concurrency: 5 },
);

/** POST /api/jobs/process: called by the platform's scheduler with a shared secret. */
export async function POST(request: Request): Promise<Response> {
  // The secret is the application's own; queuedev has no authentication of its own.
  if (request.headers.get('authorization') !== `Bearer ${process.env.CRON_SECRET}`) {
    return new Response('Unauthorized', { status: 401 });
  }
  const processed = await processor.start();
  return Response.json({ processed });
}
