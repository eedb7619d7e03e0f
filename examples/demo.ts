/**
 * The queuedev demo, run by `npm run demo`.
 *
 * It prepares its own namespace (PostgreSQL schema `queuedev_demo`, or Redis key prefix `demo:`),
 * clears what an earlier run left there, adds a handful of jobs (single adds, one batch with a
 * dependency, one idempotent duplicate), processes them, and prints what happened.
 *
 *   npm run demo                   embedded PostgreSQL (PGlite) in memory: no server needed
 *   npm run demo -- --postgres     PostgreSQL at PG_QUEUE_DATABASE (default postgres://postgres@127.0.0.1:5432/test);
 *                                  also chosen when PG_QUEUE_DATABASE is set, or DEMO_BACKEND=postgres
 *   npm run demo -- --redis        Redis at REDIS_URL (default redis://127.0.0.1:6379); or DEMO_BACKEND=redis
 */
import {
  JOB_STATUSES,
  batchDepRef,
  initJobQueue,
  migrate,
  type JobQueue,
  type JobQueueConfig,
  type JobRecord,
} from 'queuedev';

const PG_URL = process.env.PG_QUEUE_DATABASE ?? 'postgres://postgres@127.0.0.1:5432/test';
const DEMO_BACKEND = process.env.DEMO_BACKEND;
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const SCHEMA = 'queuedev_demo';
const KEY_PREFIX = 'demo:';
/** Passes of `processor.start()`: the second one runs what the first one unblocked. */
const MAX_PASSES = 5;

/** The payload of a dead-letter job (SPEC §2.5). */
interface DeadLetter {
  originalJob: { id: number; jobType: string; attempts: number; maxAttempts: number };
  originalPayload: unknown;
  failure: { message: string; reason: string; failedAt: string };
}

/** One payload type per job type: addJob and the handlers are checked against it. */
type Payloads = {
  'email.send': { to: string; subject: string };
  'image.resize': { imageId: number; width: number };
  'report.build': { month: string };
  'report.publish': { month: string };
  'webhook.deliver': { url: string };
  'webhook.dead': DeadLetter;
};

/** Where the demo runs: a flag, else DEMO_BACKEND, else a server named by PG_QUEUE_DATABASE, else embedded. */
const target: 'redis' | 'postgres' | 'pglite' = process.argv.includes('--redis')
  ? 'redis'
  : process.argv.includes('--postgres')
    ? 'postgres'
    : DEMO_BACKEND === 'redis' || DEMO_BACKEND === 'postgres' || DEMO_BACKEND === 'pglite'
      ? DEMO_BACKEND
      : process.env.PG_QUEUE_DATABASE
        ? 'postgres'
        : 'pglite';

async function main(): Promise<void> {
  const queue = await openQueue();
  try {
    await run(queue);
  } finally {
    await queue.close();
  }
}

async function openQueue(): Promise<JobQueue<Payloads>> {
  let config: JobQueueConfig;
  if (target === 'redis') {
    console.log(`Backend: Redis at ${REDIS_URL}, key prefix "${KEY_PREFIX}"`);
    config = { backend: 'redis', redisConfig: { url: REDIS_URL, keyPrefix: KEY_PREFIX } };
  } else if (target === 'postgres') {
    console.log(`Backend: PostgreSQL at ${redactPassword(PG_URL)}, schema "${SCHEMA}"`);
    // Creates the schema and its tables on the first run; later runs find nothing to apply.
    await migrate({ databaseUrl: PG_URL, schema: SCHEMA });
    config = { databaseConfig: { connectionString: PG_URL }, schema: SCHEMA };
  } else {
    console.log(`Backend: PostgreSQL embedded in this process (PGlite, in memory), schema "${SCHEMA}"`);
    // The same migrations, applied before the first operation; the database goes with the process.
    config = { pglite: {}, migrate: true, schema: SCHEMA };
  }
  const queue = initJobQueue<Payloads>(config);
  queue.on('error', (err) => console.error(`  queue error: ${err.message}`));
  // A job:failed listener takes over the warning a processor writes for each failed attempt.
  queue.on('job:failed', (e) =>
    log(`job ${e.jobId} (${e.jobType}) failed: ${e.error.message}${e.willRetry ? ', will retry' : ''}`),
  );
  return queue;
}

async function run(queue: JobQueue<Payloads>): Promise<void> {
  await clearEarlierRuns(queue);

  console.log('\nAdding jobs');
  const welcome = await queue.addJob({
    jobType: 'email.send',
    payload: { to: 'ada@example.com', subject: 'Welcome aboard' },
    tags: ['email', 'user:ada'],
    idempotencyKey: 'welcome-email:ada',
  });
  const digest = await queue.addJob({
    jobType: 'email.send',
    payload: { to: 'ada@example.com', subject: 'Your weekly digest' },
    tags: ['email', 'user:ada'],
    runAt: new Date(Date.now() + 60 * 60_000), // scheduled: stays pending for an hour
  });
  const urgent = await queue.addJob({
    jobType: 'image.resize',
    payload: { imageId: 7, width: 1280 },
    priority: 10,
    tags: ['image', 'user:ada'],
    group: { id: 'user:ada' },
  });
  const webhook = await queue.addJob({
    jobType: 'webhook.deliver',
    payload: { url: 'https://hooks.example.com/orders' },
    tags: ['webhook'],
    maxAttempts: 1, // no retry: fails for good and goes to the dead-letter type at once
    deadLetterJobType: 'webhook.dead',
  });
  console.log(`  addJob      -> ids ${welcome}, ${digest}, ${urgent}, ${webhook}`);

  // One round trip; the publish job waits for the build job of the same batch.
  const batch = await queue.addJobs([
    { jobType: 'report.build', payload: { month: '2025-01' }, priority: 5, tags: ['report'] },
    {
      jobType: 'report.publish',
      payload: { month: '2025-01' },
      priority: 5,
      tags: ['report'],
      dependsOn: { jobIds: [batchDepRef(0)] },
    },
    { jobType: 'image.resize', payload: { imageId: 8, width: 640 }, tags: ['image', 'user:bob'] },
    { jobType: 'image.resize', payload: { imageId: 9, width: 640 }, priority: -1, tags: ['image', 'user:bob'] },
  ]);
  console.log(`  addJobs     -> ids ${batch.join(', ')}`);

  const duplicate = await queue.addJob({
    jobType: 'email.send',
    payload: { to: 'ada@example.com', subject: 'Welcome aboard' },
    idempotencyKey: 'welcome-email:ada',
  });
  console.log(
    `  duplicate   -> id ${duplicate} (same key as job ${welcome}: ${duplicate === welcome ? 'no new job' : 'UNEXPECTED new job'})`,
  );

  const firstId = Math.min(welcome, digest, urgent, webhook, ...batch);
  printJobs('Queued jobs', await jobsSince(queue, firstId));

  console.log('\nProcessing');
  const processor = queue.createProcessor(
    {
      'email.send': async (payload) => {
        await pause(30);
        log(`sent "${payload.subject}" to ${payload.to}`);
      },
      'image.resize': async (payload, signal, ctx) => {
        await pause(20);
        await ctx.setProgress(50);
        await pause(20);
        if (signal.aborted) return;
        log(`resized image ${payload.imageId} to ${payload.width}px`);
        return { width: payload.width }; // stored as the job's output
      },
      'report.build': async (payload) => {
        await pause(50);
        log(`built report ${payload.month}`);
        return { rows: 1234 };
      },
      'report.publish': async (payload) => {
        await pause(20);
        log(`published report ${payload.month} (its build job completed first)`);
      },
      'webhook.deliver': async (payload) => {
        await pause(10); // the receiver takes a moment, then refuses
        throw new Error(`POST ${payload.url} answered 503`);
      },
      // A handler may also be a plain function: the processor takes its value as it takes a promise's.
      'webhook.dead': (envelope) => {
        log(`dead letter for job ${envelope.originalJob.id}: ${envelope.failure.message}`);
      },
    },
    { workerId: 'demo-worker', batchSize: 20, concurrency: 4, groupConcurrency: 1 },
  );

  let total = 0;
  for (let pass = 1; pass <= MAX_PASSES; pass++) {
    const processed = await processor.start();
    console.log(`  pass ${pass}: processed ${processed} job(s)`);
    total += processed;
    if (processed === 0) break;
  }
  console.log(`  ${total} job(s) processed in total`);

  const jobs = await jobsSince(queue, firstId);
  printJobs('Jobs after processing', jobs);
  printCounts(jobs);

  const failed = jobs.find((j) => j.id === webhook);
  if (failed) {
    const history = (await queue.getJobEvents(webhook)).map((e) => e.eventType).join(' -> ');
    console.log(`\nHistory of job ${webhook} (${failed.jobType}): ${history}`);
    console.log(`  failure reason: ${failed.failureReason}, dead-letter job: ${failed.deadLetterJobId ?? 'none'}`);
  }
}

/** Leaves the demo namespace empty of earlier runs' jobs, using the queue's own operations. */
async function clearEarlierRuns(queue: JobQueue<Payloads>): Promise<void> {
  const reclaimed = await queue.reclaimStuckJobs(0); // a run interrupted mid-handler
  const cancelled = await queue.cancelAllUpcomingJobs();
  const removed = await queue.cleanupOldJobs(0);
  if (reclaimed + cancelled + removed > 0) {
    console.log(`Cleared earlier demo runs: ${removed} job(s) removed`);
  }
}

/** Jobs of this run: ids grow in insertion order, so they are the ids from `firstId` on. */
async function jobsSince(queue: JobQueue<Payloads>, firstId: number): Promise<JobRecord[]> {
  const jobs = await queue.getAllJobs(); // newest first
  return jobs.filter((j) => j.id >= firstId).reverse();
}

function printJobs(title: string, jobs: JobRecord[]): void {
  console.log(`\n${title}`);
  const rows = jobs.map((j) => [String(j.id), j.jobType, String(j.priority), j.status, j.tags.join(', ')]);
  printTable(['id', 'type', 'priority', 'status', 'tags'], rows, [true, false, true, false, false]);
}

function printCounts(jobs: JobRecord[]): void {
  console.log('\nJobs by status');
  const rows = JOB_STATUSES.map((status) => [status, String(jobs.filter((j) => j.status === status).length)]);
  printTable(['status', 'count'], rows, [false, true]);
}

/** Prints an aligned text table; `numeric` columns are right-aligned. */
function printTable(header: string[], rows: string[][], numeric: boolean[]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    '  ' +
    cells
      .map((c, i) => (numeric[i] ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  console.log(line(header));
  console.log(line(widths.map((w) => '-'.repeat(w))));
  for (const row of rows) console.log(line(row));
}

function log(message: string): void {
  console.log(`    ${message}`);
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function redactPassword(url: string): string {
  return url.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@');
}

main().catch((err: unknown) => {
  const message = err instanceof Error ? err.message : String(err);
  console.error(`\nThe demo failed: ${message}`);
  console.error(
    target === 'redis'
      ? `Is Redis reachable at ${REDIS_URL}? Set REDIS_URL to point elsewhere.`
      : target === 'postgres'
        ? `Is PostgreSQL reachable at ${redactPassword(PG_URL)}? Set PG_QUEUE_DATABASE to point elsewhere.`
        : 'The embedded database needs the @electric-sql/pglite package (npm install @electric-sql/pglite); or run the demo on a server with --postgres or --redis.',
  );
  process.exitCode = 1;
});
