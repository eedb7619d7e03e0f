/**
 * PostgreSQL refusing the values of a write (SQLSTATE class 22 or 23) is translated once, at
 * the backend's store-error seam, for every operation: a StoreRejectedError naming the
 * operation and the SQLSTATE, with the driver's error as `cause`.
 */
import { expect, it } from 'vitest';
import { StoreRejectedError } from '../../src/errors.js';
import { backendOf } from '../../src/queue.js';
import { usePostgres } from './support.js';

const ctx = usePostgres();

it('a refused setOutput is a StoreRejectedError naming the operation and the SQLSTATE', async () => {
  const queue = ctx.queue();
  const jobId = await queue.addJob({ jobType: 'work', payload: {} });
  await backendOf(queue).claimJobs({ workerId: 'w1', batchSize: 1, now: new Date() });
  // A lone surrogate slips past no validation here (the backend is called directly); jsonb refuses it.
  const error = await backendOf(queue)
    .setOutput({ jobId, workerId: 'w1', output: 'x\ud800', now: new Date() })
    .catch((e: unknown) => e);
  expect(error).toBeInstanceOf(StoreRejectedError);
  expect((error as Error).message).toMatch(
    /^PostgreSQL refused the values written by setOutput \(SQLSTATE 22[0-9A-Z]{3}\): /,
  );
  expect((error as Error).cause).toMatchObject({ code: expect.stringMatching(/^22/) });
});
