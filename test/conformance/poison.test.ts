/**
 * Poison jobs: one job's bad value never holds the others (DETAILS "Handler context"; STYLE
 * "One bad job never holds others"). Values a store cannot hold are refused before the write,
 * alike on both backends; whatever a handler throws is stored as a bounded, storable message.
 */
import { expect, it } from 'vitest';
import { ValidationError } from '../../src/errors.js';
import { MAX_FAILURE_MESSAGE_LENGTH } from '../../src/failure.js';
import type { JobContext } from '../../src/handler-context.js';
import { forEachBackend } from '../helpers/backends.js';
import { expectFailure } from './assertions.js';

/** A string PostgreSQL's jsonb refuses: half of a UTF-16 surrogate pair. */
const LONE_SURROGATE = 'x\ud800';

forEachBackend('poison jobs', (ctx) => {
  async function addWork(count: number): Promise<number[]> {
    return ctx.queue.addJobs(Array.from({ length: count }, (_, n) => ({ jobType: 'work', payload: { n } })));
  }

  it('a return value with a lone surrogate completes only that job without output; its batch completes with theirs', async () => {
    const ids = await addWork(4);
    const errors: Error[] = [];
    const processor = ctx.queue.createProcessor(
      { work: async (p: { n: number }) => (p.n === 2 ? LONE_SURROGATE : `done ${p.n}`) },
      { batchSize: 4, concurrency: 4, onError: (e) => errors.push(e) },
    );
    expect(await processor.start()).toBe(4);
    const jobs = await Promise.all(ids.map((id) => ctx.queue.getJob(id)));
    expect(jobs.map((j) => [j?.status, j?.output])).toEqual([
      ['completed', 'done 0'],
      ['completed', 'done 1'],
      ['completed', null],
      ['completed', 'done 3'],
    ]);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.message).toContain(`job ${ids[2]}`);
    expect(errors[0]!.message).toContain('lone UTF-16 surrogates');
    expect(errors[0]!.cause).toBeInstanceOf(ValidationError);
  });

  it('ctx.setOutput throws a ValidationError for a lone surrogate and stores nothing; uncaught, only that job fails', async () => {
    const ids = await addWork(3);
    let caught: unknown;
    const processor = ctx.queue.createProcessor(
      {
        work: async (p: { n: number }, _signal: AbortSignal, jobCtx: JobContext) => {
          if (p.n === 0) {
            try {
              await jobCtx.setOutput({ text: LONE_SURROGATE });
            } catch (err) {
              caught = err;
            }
            return undefined;
          }
          if (p.n === 1) await jobCtx.setOutput([LONE_SURROGATE]);
          return `done ${p.n}`;
        },
      },
      { batchSize: 3, concurrency: 3 },
    );
    expect(await processor.start()).toBe(3);
    expect(caught).toBeInstanceOf(ValidationError);
    expect((caught as ValidationError).field).toBe('output.text');
    const [caughtJob, failedJob, okJob] = await Promise.all(ids.map((id) => ctx.queue.getJob(id)));
    expect(caughtJob).toMatchObject({ status: 'completed', output: null });
    expect(failedJob).toMatchObject({ status: 'failed', failureReason: 'handler_error', output: null });
    expect(failedJob?.errorHistory[0]?.message).toContain('lone UTF-16 surrogates');
    expect(okJob).toMatchObject({ status: 'completed', output: 'done 2' });
  });

  it('ctx.run refuses a step result with a lone surrogate: no step is stored, and uncaught the job fails with handler_error', async () => {
    const [bad, ok] = await addWork(2);
    const processor = ctx.queue.createProcessor(
      {
        work: async (p: { n: number }, _signal: AbortSignal, jobCtx: JobContext) =>
          jobCtx.run('load', () => (p.n === 0 ? { name: LONE_SURROGATE } : { name: 'fine' })),
      },
      { batchSize: 2, concurrency: 2 },
    );
    expect(await processor.start()).toBe(2);
    const failed = await ctx.queue.getJob(bad!);
    expect(failed).toMatchObject({ status: 'failed', failureReason: 'handler_error' });
    expect(failed?.stepData ?? {}).toEqual({});
    expect(failed?.errorHistory[0]?.message).toContain('step "load".name');
    expect(failed?.errorHistory[0]?.message).toContain('lone UTF-16 surrogates');
    expect(await ctx.queue.getJob(ok!)).toMatchObject({ status: 'completed', output: { name: 'fine' } });
  });

  it.each([
    ['a NUL character', 'step\u0000one'],
    ['a lone surrogate', 'step\ud800'],
  ])('ctx.run refuses a step name with %s with a ValidationError naming stepName', async (_what, stepName) => {
    const id = await ctx.queue.addJob({ jobType: 'work', payload: {} });
    let caught: unknown;
    let ran = false;
    await ctx.queue
      .createProcessor({
        work: async (_p: unknown, _signal: AbortSignal, jobCtx: JobContext) => {
          try {
            await jobCtx.run(stepName, () => (ran = true));
          } catch (err) {
            caught = err;
          }
        },
      })
      .start();
    expect(caught).toBeInstanceOf(ValidationError);
    expect((caught as ValidationError).field).toBe('stepName');
    expect(ran).toBe(false);
    expect(await ctx.queue.getJob(id)).toMatchObject({ status: 'completed', stepData: null });
  });

  it('completeToken refuses an output with a lone surrogate and leaves the token open', async () => {
    const { id } = await ctx.queue.createToken();
    await expectFailure(ctx.queue.completeToken(id, { reply: LONE_SURROGATE }), ValidationError, {
      field: 'output.reply',
      message: ['lone UTF-16 surrogates'],
    });
    expect((await ctx.queue.getToken(id))?.status).toBe('waiting');
  });

  it('stores an error message holding NUL and lone surrogates with both replaced by U+FFFD, everywhere it is written', async () => {
    const id = await ctx.queue.addJob({
      jobType: 'work',
      payload: { n: 1 },
      maxAttempts: 1,
      deadLetterJobType: 'work.dead',
    });
    const thrown = new Error('bad\u0000byte and x\ud800 half');
    const hooked: Error[] = [];
    ctx.queue.on('job:failed', (e) => hooked.push(e.error));
    expect(
      await ctx.queue
        .createProcessor({
          work: async () => {
            throw thrown;
          },
        })
        .start(),
    ).toBe(1);
    const stored = 'bad\uFFFDbyte and x\uFFFD half';
    const job = await ctx.queue.getJob(id);
    expect(job).toMatchObject({ status: 'failed', failureReason: 'handler_error' });
    expect(job?.errorHistory.map((e) => e.message)).toEqual([stored]);
    const failedEvent = (await ctx.queue.getJobEvents(id)).find((e) => e.eventType === 'failed');
    expect(failedEvent?.metadata).toMatchObject({ message: stored });
    const deadLetter = await ctx.queue.getJob(job!.deadLetterJobId!);
    expect(deadLetter?.payload).toMatchObject({ failure: { message: stored, reason: 'handler_error' } });
    // Hooks get the handler's own error, unchanged.
    expect(hooked).toEqual([thrown]);
  });

  it(`stores at most ${MAX_FAILURE_MESSAGE_LENGTH} characters of a very long error message, saying it was cut`, async () => {
    const id = await ctx.queue.addJob({ jobType: 'work', payload: {} });
    await ctx.queue
      .createProcessor({
        work: async () => {
          throw new Error('y'.repeat(200_000));
        },
      })
      .start();
    const message = (await ctx.queue.getJob(id))?.errorHistory[0]?.message ?? '';
    expect(message.length).toBeLessThanOrEqual(MAX_FAILURE_MESSAGE_LENGTH);
    expect(message).toMatch(/^y{4000,} … \[truncated from 200000 characters\]$/);
  });

  function circular(): unknown {
    const value: Record<string, unknown> = { name: 'loop' };
    value.self = value;
    return value;
  }
  function errorWithThrowingMessage(): Error {
    const error = new Error('hidden');
    Object.defineProperty(error, 'message', {
      get() {
        throw new Error('message getter');
      },
    });
    return error;
  }
  const trap = () => {
    throw new Error('trap');
  };

  it.each<[string, () => unknown, string]>([
    ['a circular object', circular, '[object Object]'],
    ['an Error whose message getter throws', errorWithThrowingMessage, 'Error (its message could not be read)'],
    ['an object whose toJSON and toString throw', () => ({ toJSON: trap, toString: trap }), '[object Object]'],
    [
      'a Proxy whose every trap throws',
      () => new Proxy({}, { get: trap, getPrototypeOf: trap, ownKeys: trap }),
      'a thrown value that cannot be described',
    ],
    ['null', () => null, 'null'],
    ['undefined', () => undefined, 'undefined'],
    ['a symbol', () => Symbol('poison'), 'Symbol(poison)'],
  ])('a handler throwing %s fails the job with handler_error', async (_what, make, stored) => {
    const id = await ctx.queue.addJob({ jobType: 'work', payload: {} });
    const hooked: unknown[] = [];
    ctx.queue.on('job:failed', (e) => hooked.push(e.error));
    await ctx.queue
      .createProcessor({
        work: async () => {
          throw make();
        },
      })
      .start();
    const job = await ctx.queue.getJob(id);
    expect(job).toMatchObject({ status: 'failed', failureReason: 'handler_error' });
    expect(job?.errorHistory.map((e) => e.message)).toEqual([stored]);
    expect(hooked).toHaveLength(1);
    expect(hooked[0]).toBeInstanceOf(Error);
    expect((hooked[0] as Error).message).toBe(stored);
  });
});
