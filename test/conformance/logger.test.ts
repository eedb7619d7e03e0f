/**
 * The `logger` option: the library's lines go to a pino, winston or console logger as a message
 * plus fields; debug lines only where a `verbose` flag asks for them; connection passwords
 * masked; a logger without the four methods refused at construction. Real pino and winston
 * write JSON to a stream the test reads back.
 */
import { Writable } from 'node:stream';
import pg from 'pg';
import { pino } from 'pino';
import { Redis } from 'ioredis';
import winston from 'winston';
import { afterEach, expect, it, vi } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { initJobQueue, type JobQueue } from '../../src/queue.js';
import type { JobQueueConfig, Logger } from '../../src/types.js';
import { PG_URL, REDIS_URL, forEachBackend, itUnless, useQueues } from '../helpers/backends.js';
import { waitFor } from '../helpers/wait.js';

type Line = Record<string, unknown>;

/** A pino logger at debug level writing JSON lines into `lines`. */
function pinoLogger(lines: Line[]): Logger {
  const stream = { write: (text: string) => void lines.push(JSON.parse(text) as Line) };
  return pino({ level: 'debug', base: null, timestamp: false }, stream);
}

/** A winston logger at debug level writing JSON lines into `lines`. */
function winstonLogger(lines: Line[]): Logger {
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Line);
      done();
    },
  });
  return winston.createLogger({
    level: 'debug',
    format: winston.format.json(),
    transports: [new winston.transports.Stream({ stream })],
  });
}

/** Makes the next `error` event's listener throw `message`: the queue writes that at level error. */
async function logAnErrorLine(queue: JobQueue, message: string): Promise<void> {
  queue.once('job:added', () => {
    throw new Error('a listener bug');
  });
  queue.once('error', () => {
    throw new Error(message);
  });
  await queue.addJob({ jobType: 'noise', payload: {} });
}

forEachBackend('logger option', (ctx) => {
  const track = useQueues();
  const closers: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
    vi.restoreAllMocks();
  });

  const queueWith = (extra: Partial<JobQueueConfig>): JobQueue => track(initJobQueue({ ...ctx.config, ...extra }));

  /** Adds a job the processor `workerId` runs and fails; returns its id. */
  async function failOne(queue: JobQueue, workerId: string, verbose: boolean): Promise<number> {
    const id = await queue.addJob({ jobType: 'charge', payload: {}, maxAttempts: 1 });
    const processor = queue.createProcessor(
      {
        charge: async () => {
          throw new Error('card declined');
        },
      },
      { workerId, verbose, jobType: 'charge' },
    );
    expect(await processor.start()).toBe(1);
    return id;
  }

  it('gives pino (fields, message): jobId, jobType, workerId and the error in the fields', async () => {
    const lines: Line[] = [];
    const queue = queueWith({ logger: pinoLogger(lines), verbose: true });
    const id = await failOne(queue, 'w-pino', true);
    expect(lines).toContainEqual(
      expect.objectContaining({ level: 20, msg: `added job ${id} (charge)`, jobId: id, jobType: 'charge' }),
    );
    // The failed attempt at level warn: nothing listens for job:failed.
    const failed = lines.find((l) => typeof l.msg === 'string' && l.msg.includes('failed (handler_error)'));
    expect(failed).toMatchObject({
      level: 40,
      workerId: 'w-pino',
      jobId: id,
      jobType: 'charge',
      failureReason: 'handler_error',
      willRetry: false,
      error: { name: 'Error', message: 'card declined' },
    });
    expect((failed?.error as { stack: string }).stack).toMatch(/^Error: card declined\n/);
    expect(lines).toContainEqual(expect.objectContaining({ level: 20, workerId: 'w-pino', jobIds: [id] }));
  });

  it('gives winston (message, fields), with the same fields', async () => {
    const lines: Line[] = [];
    const queue = queueWith({ logger: winstonLogger(lines), verbose: true });
    const id = await failOne(queue, 'w-winston', true);
    const failed = await waitFor(
      () => lines.find((l) => typeof l.message === 'string' && l.message.includes('failed (handler_error)')),
      { what: 'the failure line' },
    );
    expect(failed).toMatchObject({
      level: 'warn',
      message: `processor w-winston: job ${id} (charge) failed (handler_error): card declined (attempt 1 of 1, no retry)`,
      workerId: 'w-winston',
      jobId: id,
      jobType: 'charge',
      error: { name: 'Error', message: 'card declined' },
    });
    await logAnErrorLine(queue, 'listener broke');
    const error = await waitFor(() => lines.find((l) => l.level === 'error'), { what: 'the error line' });
    expect(error).toMatchObject({
      message: 'an error listener threw: listener broke',
      error: { name: 'Error', message: 'listener broke' },
    });
  });

  it('writes debug lines only where verbose is set; warnings and errors always', async () => {
    const lines: Line[] = [];
    const queue = queueWith({ logger: pinoLogger(lines) });
    const quietId = await failOne(queue, 'w-quiet', false);
    await logAnErrorLine(queue, 'listener broke');
    expect(lines).toEqual([
      expect.objectContaining({ level: 40, jobId: quietId, msg: expect.stringContaining('failed (handler_error)') }),
      expect.objectContaining({ level: 50, msg: 'an error listener threw: listener broke' }),
    ]);

    // A processor's own `verbose` turns on its lines, not the queue's.
    lines.length = 0;
    const id = await failOne(queue, 'w-verbose', true);
    expect(lines.filter((l) => l.level === 20).length).toBeGreaterThan(0);
    expect(lines.every((l) => (l.level === 20 || l.level === 40) && l.workerId === 'w-verbose')).toBe(true);
    expect(lines.some((l) => l.jobId === id)).toBe(true);
  });

  it('calls console as (message, fields)', async () => {
    const debug = vi.spyOn(console, 'debug').mockImplementation(() => undefined);
    const queue = queueWith({ logger: console, verbose: true });
    const id = await queue.addJob({ jobType: 'mail', payload: {} });
    expect(debug).toHaveBeenCalledWith(`added job ${id} (mail)`, { jobId: id, jobType: 'mail' });
  });

  it('keeps working when the logger throws', async () => {
    const throwing = () => {
      throw new Error('logger down');
    };
    const queue = queueWith({
      logger: { debug: throwing, info: throwing, warn: throwing, error: throwing },
      verbose: true,
    });
    await failOne(queue, 'w-throwing', true);
    await logAnErrorLine(queue, 'listener broke');
  });

  itUnless(ctx, {
    pglite: 'an embedded database has no connection password',
    'redis-cluster': 'the redis target covers the client options; a cluster has one per node',
  })('masks the connection password and URL passwords in every line', async () => {
    const password = 'pw-never-logged-7f3a';
    const lines: Line[] = [];
    let config: Partial<JobQueueConfig>;
    if (ctx.backend === 'postgres') {
      // The test server trusts local connections: the password is sent, never checked.
      const pool = new pg.Pool({ connectionString: PG_URL, password });
      closers.push(() => pool.end());
      config = { pool };
    } else {
      const client = new Redis(REDIS_URL, { password });
      closers.push(async () => client.disconnect());
      config = { client };
    }
    const queue = queueWith({ ...config, logger: pinoLogger(lines), verbose: true });
    const processor = queue.createProcessor(
      {
        leak: async () => {
          throw new Error(`connect failed with ${password} for redis://app:${password}x@cache:6379`);
        },
      },
      { verbose: true },
    );
    await queue.addJob({ jobType: 'leak', payload: {}, maxAttempts: 1 });
    expect(await processor.start()).toBe(1);
    await logAnErrorLine(queue, `auth ${password} refused`);
    const text = JSON.stringify(lines);
    expect(text).toContain('[redacted]');
    expect(text).toContain('connect failed with [redacted] for redis://app:[redacted]@cache:6379');
    expect(text).toContain('auth [redacted] refused');
    expect(text).not.toContain(password);
  });

  it('refuses a logger without debug, info, warn and error methods, naming `logger`', () => {
    const partial = { debug() {}, info() {}, warn() {} };
    expect(() => initJobQueue({ ...ctx.config, logger: partial as unknown as Logger })).toThrow(ConfigError);
    expect(() => initJobQueue({ ...ctx.config, logger: partial as unknown as Logger })).toThrow(
      /`logger`.*`error` is not a function/,
    );
    expect(() => initJobQueue({ ...ctx.config, logger: 'pino' as unknown as Logger })).toThrow(
      'Expected `logger` to be an object with debug, info, warn and error methods (pino, winston, console), got "pino" (string)',
    );
  });
});
