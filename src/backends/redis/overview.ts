/**
 * The overview (src/overview.ts) on Redis: job counts from the status sets (ZCARD) and the job
 * types of their newest jobs (count-job-types.lua, in slices), and the throughput counters
 * of the `throughput` hash (includes/throughput.lua).
 */
import type { JobCountFacts, ThroughputFacts } from '../../overview.js';
import { MINUTE_MS } from '../../overview.js';
import { JOB_STATUSES, type JobStatus } from '../../types.js';
import type { BackendContext } from './context.js';
import { scriptSlice, walkSlices, type SliceCursor } from './slices.js';

async function countPerStatus(ctx: BackendContext, { limit }: { limit: number }): Promise<JobCountFacts> {
  await ctx.ready(); // read with the client directly, not through `run`
  const multi = ctx.client.multi();
  for (const status of JOB_STATUSES) multi.zcard(ctx.keys.status[status]);
  const replies = (await multi.exec()) ?? [];
  const facts: JobCountFacts = { byStatus: {}, byType: [] };
  await Promise.all(
    JOB_STATUSES.map(async (status, i) => {
      const [err, total] = replies[i] ?? [new Error('no reply')];
      if (err) throw err;
      const wanted = Math.min(Number(total), limit);
      facts.byStatus[status] = wanted;
      if (wanted > 0) facts.byType.push(...(await countTypes(ctx, status, wanted)));
    }),
  );
  return facts;
}

/**
 * The job types of the newest `wanted` jobs of `status`, read `scriptSlice.count` jobs per
 * call. Each call is atomic, the walk is not: a job that changes status meanwhile may be
 * counted in both statuses or in neither, as in any read of a busy queue.
 */
async function countTypes(ctx: BackendContext, status: JobStatus, wanted: number): Promise<JobCountFacts['byType']> {
  const counts = new Map<string, number>();
  let read = 0;
  await walkSlices(
    (cursor: SliceCursor) => {
      const size = Math.min(scriptSlice.count, wanted - read);
      read += size;
      return ctx.run<(string | number)[]>('countJobTypes', [status, cursor, size]);
    },
    ([next, ...pairs]) => {
      for (let i = 0; i + 1 < pairs.length; i += 2) {
        const jobType = String(pairs[i]);
        counts.set(jobType, (counts.get(jobType) ?? 0) + Number(pairs[i + 1]));
      }
      return read >= wanted ? 0 : Number(next);
    },
  );
  return [...counts].map(([jobType, count]) => ({ status, jobType, count }));
}

const fields = (minute: number) => [`${minute}:completed`, `${minute}:failed`];

async function getThroughput(ctx: BackendContext, { from, to }: { from: Date; to: Date }): Promise<ThroughputFacts> {
  await ctx.ready();
  const minutes: number[] = [];
  for (let t = from.getTime(); t <= to.getTime(); t += MINUTE_MS) minutes.push(t / MINUTE_MS);
  if (minutes.length === 0) return [];
  const values = await ctx.client.hmget(ctx.keys.throughput, ...minutes.flatMap(fields));
  const facts: ThroughputFacts = [];
  minutes.forEach((minute, i) => {
    const [completed, failed] = [values[2 * i], values[2 * i + 1]];
    if (completed == null && failed == null) return;
    facts.push({
      minute: new Date(minute * MINUTE_MS),
      completed: Number(completed ?? 0),
      failed: Number(failed ?? 0),
    });
  });
  return facts;
}

async function trimThroughput(ctx: BackendContext, { olderThan }: { olderThan: Date }): Promise<number> {
  return ctx.run<number>('trimThroughput', [olderThan.getTime()]);
}

export const overviewOperations = { countPerStatus, getThroughput, trimThroughput };
