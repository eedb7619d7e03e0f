/**
 * The outcome buffers when PostgreSQL refuses one row of a batched completion or failure.
 * Validation and failureMessage() keep such values out before they get here; these tests hand
 * the buffers a value that slipped past them (a lone surrogate, which jsonb refuses) to prove
 * the store-side safety net.
 */
import { expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { completionBuffer, failureBuffer, REFUSED_FAILURE_MESSAGE } from '../../src/write-buffer.js';
import { StoreRejectedError } from '../../src/errors.js';
import { backendOf } from '../../src/queue.js';
import { usePostgres } from './support.js';

const ctx = usePostgres();

async function claimed(count: number) {
  const queue = ctx.queue();
  const ids = await queue.addJobs(Array.from({ length: count }, (_, n) => ({ jobType: 'work', payload: { n } })));
  const jobs = await backendOf(queue).claimJobs({ workerId: 'w1', batchSize: count, now: new Date() });
  expect(jobs.map((j) => j.id).sort()).toEqual(ids);
  const errors: Error[] = [];
  const buffer = completionBuffer(backendOf(queue), systemClock, (e) => errors.push(e));
  const failures = failureBuffer(backendOf(queue), systemClock, (e) => errors.push(e));
  return { queue, ids, buffer, failures, errors };
}

it('writes a refused batch job by job: the others complete with their output, the refused one without it', async () => {
  const { queue, ids, buffer, errors } = await claimed(4);
  const outputs = ['a', 'b', 'x\ud800', 'd'];
  const results = await Promise.all(ids.map((jobId, i) => buffer.add({ jobId, workerId: 'w1', output: outputs[i] })));
  expect(results).toEqual([true, true, true, true]);
  const jobs = await Promise.all(ids.map((id) => queue.getJob(id)));
  expect(jobs.map((j) => [j?.status, j?.output])).toEqual([
    ['completed', 'a'],
    ['completed', 'b'],
    ['completed', null],
    ['completed', 'd'],
  ]);
  expect(errors).toHaveLength(1);
  expect(errors[0]!.message).toContain(`output of job ${ids[2]}`);
  expect(errors[0]!.cause).toBeInstanceOf(StoreRejectedError);
});

it('keeps what setOutput stored when the final output of the job is refused', async () => {
  const { queue, ids, buffer } = await claimed(2);
  const [refused, other] = ids as [number, number];
  await backendOf(queue).setOutput({ jobId: refused, workerId: 'w1', output: { partial: true }, now: new Date() });
  await Promise.all([
    buffer.add({ jobId: refused, workerId: 'w1', output: ['x\ud800'] }),
    buffer.add({ jobId: other, workerId: 'w1' }),
  ]);
  expect(await queue.getJob(refused)).toMatchObject({ status: 'completed', output: { partial: true } });
  expect(await queue.getJob(other)).toMatchObject({ status: 'completed', output: null });
});

it('flush(), which start() awaits, resolves with every job of a refused batch recorded', async () => {
  const { queue, ids, buffer } = await claimed(3);
  const added = ids.map((jobId, i) => buffer.add({ jobId, workerId: 'w1', output: i === 0 ? { bad: 'x\udfff' } : i }));
  await buffer.flush();
  expect(await Promise.all(added)).toEqual([true, true, true]);
  expect((await queue.getJobsByStatus('completed')).map((j) => j.id).sort()).toEqual(ids);
});

it('writes a refused batch of failures job by job: the refused one is recorded without its error', async () => {
  const { queue, ids, failures, errors } = await claimed(3);
  const [plain, refused, retried] = ids as [number, number, number];
  const retryAt = new Date(Date.now() + 60_000);
  const results = await Promise.all([
    failures.add({ jobId: plain, workerId: 'w1', message: 'plain', reason: 'handler_error', retryAt: null }),
    failures.add({
      jobId: refused,
      workerId: 'w1',
      message: 'x\ud800',
      stack: 'Error: x',
      reason: 'handler_error',
      retryAt: null,
    }),
    failures.add({ jobId: retried, workerId: 'w1', message: 'again', reason: 'handler_error', retryAt }),
  ]);
  expect(results).toEqual(ids.map(() => ({ deadLetterJobId: null, cascaded: [] })));
  const jobs = await Promise.all(ids.map((id) => queue.getJob(id)));
  expect(jobs.map((j) => [j?.status, j?.nextAttemptAt, j?.errorHistory.map((e) => [e.message, e.stack])])).toEqual([
    ['failed', null, [['plain', undefined]]],
    ['failed', null, [[REFUSED_FAILURE_MESSAGE, undefined]]],
    ['failed', retryAt, [['again', undefined]]],
  ]);
  expect(errors).toHaveLength(1);
  expect(errors[0]!.message).toContain(`error of job ${refused}`);
  expect(errors[0]!.cause).toBeInstanceOf(StoreRejectedError);
});
