/**
 * Drives jobs into processing, completed or failed through the Backend interface, for
 * conformance tests of operations that depend on those states (retry, cleanup, dependencies).
 * The processor is not needed: claimJobs / completeJobs / failJobs are the same calls it makes.
 *
 * The target job must be the only claimable job of its type, so give it a type of its own.
 */
import { expect } from 'vitest';
import { backendOf, type JobQueue } from '../../src/queue.js';
import { failOne } from '../helpers/fail.js';

const WORKER = 'conformance-worker';

/** pending → processing. */
export async function claimJob(queue: JobQueue, jobId: number): Promise<void> {
  const job = await queue.getJob(jobId);
  if (!job) throw new Error(`claimJob: job ${jobId} does not exist`);
  const claimed = await backendOf(queue).claimJobs({
    workerId: WORKER,
    batchSize: 10,
    jobTypes: [job.jobType],
    now: queue.clock.now(),
  });
  // Anything else claimed would be left processing and skew the test that called us.
  expect(
    claimed.map((j) => j.id),
    `claimJob(${jobId}) must claim exactly that job`,
  ).toEqual([jobId]);
}

/** pending → processing → completed. */
export async function completeJob(queue: JobQueue, jobId: number, output?: unknown): Promise<void> {
  await claimJob(queue, jobId);
  const done = await backendOf(queue).completeJobs(
    [output === undefined ? { jobId, workerId: WORKER } : { jobId, workerId: WORKER, output }],
    queue.clock.now(),
  );
  expect(done).toEqual([jobId]);
}

/**
 * pending → processing → failed. With `retryAt` null (default) the job ends failed with no
 * retry left; with a date it is failed and waiting for its automatic retry.
 */
export async function failJob(
  queue: JobQueue,
  jobId: number,
  options: { message?: string; retryAt?: Date | null } = {},
): Promise<void> {
  await claimJob(queue, jobId);
  const result = await failOne(backendOf(queue), {
    jobId,
    workerId: WORKER,
    message: options.message ?? 'boom',
    reason: 'handler_error',
    retryAt: options.retryAt ?? null,
    now: queue.clock.now(),
  });
  expect(result, `failJob(${jobId}) must record the failure`).not.toBeNull();
}

export const DAY_MS = 86_400_000;

/**
 * Adds `count` jobs of `jobType` (with `tags`) and fails each for good (no retry left) in one
 * claim: the type must have no other claimable job. Returns their ids, oldest first.
 */
export async function addFailedJobs(
  queue: JobQueue,
  jobType: string,
  count: number,
  tags: string[] = [],
): Promise<number[]> {
  const ids = await queue.addJobs(Array.from({ length: count }, (_, i) => ({ jobType, payload: { i }, tags })));
  const backend = backendOf(queue);
  const claimed = await backend.claimJobs({
    workerId: WORKER,
    batchSize: count,
    jobTypes: [jobType],
    now: queue.clock.now(),
  });
  expect(claimed, `addFailedJobs: the ${count} jobs of ${jobType} must be claimed`).toHaveLength(count);
  for (const jobId of ids) {
    const failed = await failOne(backend, {
      jobId,
      workerId: WORKER,
      message: 'boom',
      reason: 'handler_error',
      retryAt: null,
      now: queue.clock.now(),
    });
    expect(failed, `addFailedJobs: job ${jobId} must fail`).not.toBeNull();
  }
  return ids;
}
