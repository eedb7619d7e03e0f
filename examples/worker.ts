/**
 * A long-running worker: a background processor plus the maintenance supervisor, stopped
 * gracefully on SIGINT/SIGTERM so no handler is cut off mid-job by a deploy.
 *
 *   PG_QUEUE_DATABASE=postgres://... tsx examples/worker.ts
 *   QUEUE_BACKEND=redis REDIS_URL=redis://... tsx examples/worker.ts
 */
import { initJobQueue, type JobQueueConfig } from 'queuedev';

type Payloads = {
  'email.send': { to: string; subject: string; body: string };
  'report.build': { month: string };
};

const config: JobQueueConfig =
  process.env.QUEUE_BACKEND === 'redis'
    ? { backend: 'redis', redisConfig: { url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' } }
    : {
        databaseConfig: {
          connectionString: process.env.PG_QUEUE_DATABASE ?? 'postgres://postgres@127.0.0.1:5432/test',
        },
      };

// One queue per process: it owns the connection pool.
const queue = initJobQueue<Payloads>(config);

const processor = queue.createProcessor(
  {
    'email.send': async (payload, signal) => {
      // Pass the signal on, so a timeout (job option `timeoutMs`) aborts the request too.
      const response = await fetch('https://mail.example.com/send', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(payload),
        signal,
      });
      if (!response.ok) throw new Error(`mail service answered ${response.status}`);
    },
    'report.build': async (payload, signal, ctx) => {
      const months = 12;
      for (let i = 1; i <= months; i++) {
        if (signal.aborted) return;
        await new Promise((resolve) => setTimeout(resolve, 100)); // the real work goes here
        await ctx.setProgress(Math.round((i / months) * 100));
        ctx.prolong(); // still alive: a fresh timeout, and a heartbeat against reclaim
      }
      return { month: payload.month, status: 'ready' }; // stored as the job's output
    },
  },
  {
    concurrency: 5,
    pollInterval: 5000, // new jobs wake the processor at once; polling is the fallback
    onError: (err) => console.error('[worker] processor error:', err),
  },
);

const supervisor = queue.createSupervisor({
  onError: (err) => console.error('[worker] supervisor error:', err),
});

queue.on('job:failed', ({ jobId, jobType, error, willRetry }) => {
  console.warn(`[worker] job ${jobId} (${jobType}) failed: ${error.message}${willRetry ? ', will retry' : ''}`);
});

processor.startInBackground();
supervisor.startInBackground();
console.log('[worker] started; press Ctrl+C to stop');

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  console.log(`[worker] ${signal}: finishing running jobs`);
  // Stop claiming, give running handlers up to 25 s, then close the connections.
  await Promise.all([processor.stopAndDrain(25_000), supervisor.stopAndDrain()]);
  await queue.close();
  console.log('[worker] stopped');
}

process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
