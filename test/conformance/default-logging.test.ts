/**
 * What a worker prints when the program attaches nothing (docs/events.md, "Errors nobody
 * listens for"; docs/processing.md, "What a processor writes"): errors nobody hears go to the
 * console once per cause, naming the fix where there is one; each failed attempt is a warning
 * with the job's id, type and message; a type the processor cannot run is named at its start. A
 * program that listens, or has its own logger, gets each line once, through its own channel.
 * Each test runs test/fixtures/default-logging-worker.ts in a process of its own, as users run
 * a worker, and reads what it wrote.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { PG_URL, REDIS_URL, forEachBackend, itUnless } from '../helpers/backends.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/default-logging-worker.ts', import.meta.url));

interface Run {
  /** The lines the library wrote to the console (stderr). */
  lines: string[];
  /** What the program printed: HEARD and LOGGER lines, without the last DONE line. */
  heard: string[];
  /** The job counts at the end (store `ok`). */
  counts: Record<string, number> | null;
}

/** A process starting tsx (and on PGlite a WebAssembly database) on a loaded machine: room to start. */
const PROCESS_TIMEOUT_MS = 120_000;

const START_WARNING =
  /^\[queuedev\] processor w1 has no handler for job type "ghost" of its jobType option: .*no_handler/;
const GHOST_FAILED =
  /^processor w1: job \d+ \(ghost\) failed \(no_handler\): No handler is registered for job type "ghost"/;
const BOOM_FAILED =
  /^processor w1: job (\d+) \(boom\) failed \(handler_error\): mail server down \(attempt 1 of 1, no retry\)$/;

forEachBackend('what a worker writes by default, in a process of its own', (ctx) => {
  async function run(store: 'ok' | 'unmigrated' | 'unreachable', hear: string, runMs = 2000): Promise<Run> {
    const child = fork(FIXTURE, [], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      env: {
        ...process.env,
        QD_BACKEND: ctx.target === 'pglite' ? 'pglite' : ctx.backend,
        QD_PG_URL: PG_URL,
        QD_SCHEMA: ctx.schema,
        QD_REDIS_URL: REDIS_URL,
        QD_REDIS_CLUSTER: ctx.clusterNodes,
        QD_PREFIX: ctx.keyPrefix,
        QD_STORE: store,
        QD_HEAR: hear,
        QD_RUN_MS: String(runMs),
      },
    });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    const out = stdout.split('\n').filter(Boolean);
    const done = out.at(-1) ?? '';
    expect({ code, done: done.startsWith('DONE ') }, stderr).toEqual({ code: 0, done: true });
    const lines = stderr.split('\n').filter(Boolean);
    // Nothing but the library's own lines: no stack trace, no unhandled error.
    expect(lines.filter((l) => !l.startsWith('[queuedev] '))).toEqual([]);
    return {
      lines,
      heard: out.slice(0, -1),
      counts: JSON.parse(done.slice('DONE '.length)) as Record<string, number> | null,
    };
  }

  it(
    'warns of a failed attempt with the job id, type and message, and at start of a type it has no handler for',
    async () => {
      const { lines, heard, counts } = await run('ok', '');
      expect(heard).toEqual([]);
      expect(lines[0]).toMatch(START_WARNING);
      const failures = lines.slice(1).map((l) => l.slice('[queuedev] '.length));
      expect(failures).toHaveLength(3);
      expect(failures.filter((l) => GHOST_FAILED.test(l))).toHaveLength(1);
      const booms = failures.filter((l) => BOOM_FAILED.test(l));
      expect(new Set(booms.map((l) => BOOM_FAILED.exec(l)?.[1])).size).toBe(2);
      // The `stray` job, of a type the processor neither handles nor names, waits for one that does.
      expect(counts).toMatchObject({ pending: 1, completed: 1, failed: 3, processing: 0 });
    },
    PROCESS_TIMEOUT_MS,
  );

  it(
    'writes nothing twice for a program that listens: its job:failed listener takes the warnings',
    async () => {
      const { lines, heard } = await run('ok', 'error,failed');
      // The start warning is a line of the log only: nothing else says it.
      expect(lines).toEqual([expect.stringMatching(START_WARNING)]);
      expect(heard.filter((l) => l === 'HEARD job:failed: mail server down')).toHaveLength(2);
      expect(
        heard.filter((l) => l.startsWith('HEARD job:failed: No handler is registered for job type "ghost"')),
      ).toHaveLength(1);
      expect(heard).toHaveLength(3);
    },
    PROCESS_TIMEOUT_MS,
  );

  it(
    'writes through an own logger only, each line once',
    async () => {
      const { lines, heard } = await run('ok', 'logger');
      expect(lines).toEqual([]);
      expect(heard[0]).toMatch(/^LOGGER warn processor w1 has no handler for job type "ghost"/);
      const warnings = heard.slice(1).map((l) => l.replace(/^LOGGER warn /, ''));
      expect(warnings.filter((l) => BOOM_FAILED.test(l))).toHaveLength(2);
      expect(warnings.filter((l) => GHOST_FAILED.test(l))).toHaveLength(1);
      expect(heard).toHaveLength(4);
    },
    PROCESS_TIMEOUT_MS,
  );

  const NO_MIGRATIONS = {
    redis: 'a Redis store needs no migrations',
    'redis-cluster': 'a Redis store needs no migrations',
  };

  itUnless(ctx, NO_MIGRATIONS)(
    'names the migrate command once per processor and supervisor when the schema is not migrated',
    async () => {
      const { lines, heard } = await run('unmigrated', '');
      expect(heard).toEqual([]);
      // Every claim and every supervisor run fails for 2 s: one line each, however often.
      const processor = lines.filter((l) => l.startsWith('[queuedev] processor w1: '));
      const supervisor = lines.filter((l) => l.startsWith('[queuedev] supervisor: '));
      expect(processor).toHaveLength(1);
      expect(supervisor).toHaveLength(1);
      expect(lines).toHaveLength(2);
      for (const line of lines) {
        expect(line).toContain("The queue's tables are missing from PostgreSQL schema");
        expect(line).toMatch(/npx queue-cli migrate --schema \S+$/);
      }
    },
    PROCESS_TIMEOUT_MS,
  );

  itUnless(ctx, NO_MIGRATIONS)(
    'tells an error listener instead of the console when the schema is not migrated',
    async () => {
      const { lines, heard } = await run('unmigrated', 'error');
      expect(lines).toEqual([]);
      expect(heard.length).toBeGreaterThanOrEqual(2);
      for (const line of heard) expect(line).toMatch(/^HEARD error: .*npx queue-cli migrate --schema/);
    },
    PROCESS_TIMEOUT_MS,
  );

  const SERVERS_ONLY = {
    pglite: 'an embedded database has no server to miss',
    'redis-cluster': 'the redis target covers a server that is not there',
  };
  // A queue that never reached its Redis fails its calls after waiting 2 s for a first connection.
  const unreachableMs = ctx.backend === 'redis' ? 5000 : 2000;
  const UNAVAILABLE = '(is unavailable|could not be reached)';

  itUnless(ctx, SERVERS_ONLY)(
    'says once per processor and supervisor that the store is unavailable, when no server listens on its port',
    async () => {
      const { lines, heard } = await run('unreachable', '', unreachableMs);
      expect(heard).toEqual([]);
      expect(new Set(lines).size).toBe(lines.length);
      const failing = new RegExp(
        `^\\[queuedev\\] processor w1: (claiming jobs|enqueueing due cron jobs) failed: .* ${UNAVAILABLE}`,
      );
      expect(lines.filter((l) => failing.test(l))).toHaveLength(1);
      expect(lines.filter((l) => l.startsWith('[queuedev] supervisor: '))).toEqual([
        expect.stringMatching(
          new RegExp(`^\\[queuedev\\] supervisor: reclaiming stuck jobs failed: .* ${UNAVAILABLE}`),
        ),
      ]);
    },
    PROCESS_TIMEOUT_MS,
  );

  itUnless(ctx, SERVERS_ONLY)(
    'tells onError instead of the console when no server listens on the port',
    async () => {
      const { lines, heard } = await run('unreachable', 'onError', unreachableMs);
      expect(lines).toEqual([]);
      expect(heard.length).toBeGreaterThanOrEqual(1);
      for (const line of heard) expect(line).toMatch(new RegExp(`^HEARD onError: .* ${UNAVAILABLE}`));
    },
    PROCESS_TIMEOUT_MS,
  );
});
