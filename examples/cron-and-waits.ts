/**
 * Cron schedules and durable waits, on a simulated clock so the example finishes in a second.
 *
 *   npx tsx examples/cron-and-waits.ts            PostgreSQL (schema queuedev_waits_example)
 *   npx tsx examples/cron-and-waits.ts --redis    Redis (key prefix waits-example:)
 *
 * A `ManualClock` stands in for time: the example moves it forward to reach the next cron slot
 * and the end of a one-hour wait. In an application you would leave the clock out.
 */
import { ManualClock, initJobQueue, migrate, type JobQueueConfig } from 'queuedev';

const PG_URL = process.env.PG_QUEUE_DATABASE ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const useRedis = process.argv.includes('--redis');

type Payloads = {
  'invoice.send': { customer: string };
  'report.nightly': { kind: string };
};

const clock = new ManualClock(new Date('2026-03-07T22:00:00Z'));
const at = () => clock.now().toISOString().slice(0, 16).replace('T', ' ');

async function main(): Promise<void> {
  let config: JobQueueConfig;
  if (useRedis) {
    config = { backend: 'redis', redisConfig: { url: REDIS_URL, keyPrefix: 'waits-example:' }, clock };
  } else {
    await migrate({ databaseUrl: PG_URL, schema: 'queuedev_waits_example' });
    config = { databaseConfig: { connectionString: PG_URL }, schema: 'queuedev_waits_example', clock };
  }
  const queue = initJobQueue<Payloads>(config);
  try {
    // Start from a clean slate: remove what an earlier run left.
    for (const s of await queue.listCronJobs()) await queue.removeCronJob(s.id);
    await queue.cancelAllUpcomingJobs();

    // 1. A cron schedule: 02:30 New York time every day. On 2026-03-08 02:30 does not exist
    //    (clocks jump from 02:00 to 03:00), so that day's run happens just after the gap.
    const scheduleId = await queue.addCronJob({
      scheduleName: 'nightly-report',
      cronExpression: '30 2 * * *',
      timezone: 'America/New_York',
      jobType: 'report.nightly',
      payload: { kind: 'daily' },
    });
    console.log(`[${at()}] schedule added, next run ${(await queue.getCronJob(scheduleId))!.nextRunAt.toISOString()}`);

    // 2. A handler with durable steps, a one-hour wait and an approval token.
    const sideEffects: string[] = [];
    const processor = queue.createProcessor({
      // A handler may also be a plain function: the processor takes its value as it takes a promise's.
      'report.nightly': (payload) => {
        sideEffects.push(`report ${payload.kind} built`);
      },
      'invoice.send': async (payload, _signal, ctx) => {
        const draft = await ctx.run('draft', () => {
          sideEffects.push(`draft for ${payload.customer}`);
          return { number: 'INV-1001', amount: 120 };
        });
        await ctx.waitFor({ hours: 1 }); // give the customer an hour to change their order
        const token = await ctx.run('approval-token', () => ctx.createToken({ timeout: '7d' }));
        await ctx.run('ask-approval', () => {
          sideEffects.push(`approval requested with token ${token.id.slice(0, 11)}...`);
          approvalToken = token.id;
          return null;
        });
        const approval = await ctx.waitForToken<{ approvedBy: string }>(token.id);
        if (!approval.ok) return { sent: false, reason: approval.error };
        await ctx.run('send', () => {
          sideEffects.push(`invoice ${draft.number} sent`);
          return null;
        });
        return { sent: true, invoice: draft.number, approvedBy: approval.output.approvedBy };
      },
    });
    let approvalToken = '';

    const jobId = await queue.addJob({ jobType: 'invoice.send', payload: { customer: 'ACME' } });
    await processor.start();
    console.log(`[${at()}] invoice job ${jobId}: ${(await queue.getJob(jobId))!.status} (waiting an hour)`);

    clock.advance(60 * 60_000);
    await processor.start();
    console.log(`[${at()}] invoice job ${jobId}: ${(await queue.getJob(jobId))!.status} (waiting for approval)`);

    await queue.completeToken(approvalToken, { approvedBy: 'dana' });
    await processor.start();
    const invoice = (await queue.getJob(jobId))!;
    console.log(
      `[${at()}] invoice job ${jobId}: ${invoice.status}, attempts ${invoice.attempts}, output ${JSON.stringify(invoice.output)}`,
    );

    // 3. Move to just after the DST gap: the schedule's slot is due and enqueued once.
    clock.set(new Date('2026-03-08T07:31:00Z'));
    const processed = await processor.start();
    console.log(`[${at()}] processor pass ran ${processed} job(s) (the due cron slot)`);
    console.log(`[${at()}] schedule next run ${(await queue.getCronJob(scheduleId))!.nextRunAt.toISOString()}`);

    console.log('\nSide effects, each exactly once across all resumes:');
    for (const line of sideEffects) console.log(`  - ${line}`);
  } finally {
    await queue.close();
  }
}

await main();
