/**
 * How the scripts run (scripts.ts): as the functions of one library, loaded once per server and
 * called with FCALL; loaded again when the server lost it; and by EVALSHA where the server or the
 * user refuses Functions (Redis 6 has no FUNCTION command, which a renamed command stands in
 * for here). On private redis-servers, so that the command counts and the libraries are the
 * test's alone.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { library, scripts } from '../../src/backends/redis/lua.generated.js';
import { initJobQueue, type JobQueue } from '../../src/queue.js';
import { startPrivateRedis, type PrivateServer } from '../helpers/private-servers.js';
import { useQueues } from '../helpers/backends.js';
import { commandCalls } from './counters.js';

/** The libraries loaded on the server, by name, with their functions' names. */
async function libraries(admin: Redis): Promise<Map<string, string[]>> {
  const reply = (await admin.call('FUNCTION', 'LIST')) as unknown[][];
  const found = new Map<string, string[]>();
  for (const entry of reply) {
    const fields = new Map<string, unknown>();
    for (let i = 0; i < entry.length; i += 2) fields.set(String(entry[i]), entry[i + 1]);
    const functions = (fields.get('functions') as unknown[][]).map((f) => String(f[1]));
    found.set(String(fields.get('library_name')), functions.sort());
  }
  return found;
}

/** Script calls the server ran so far, by how they were made. */
async function scriptCalls(admin: Redis): Promise<{ fcall: number; evalsha: number }> {
  return {
    fcall: await commandCalls(admin, (name) => name === 'fcall'),
    evalsha: await commandCalls(admin, (name) => name === 'evalsha' || name === 'eval'),
  };
}

/** Adds two jobs, runs them and returns their statuses. */
async function addAndRun(queue: JobQueue): Promise<string[]> {
  const ids = [await queue.addJob({ jobType: 'work', payload: { n: 1 } })];
  ids.push(...(await queue.addJobs([{ jobType: 'work', payload: { n: 2 } }])));
  const processor = queue.createProcessor({ work: () => undefined });
  expect(await processor.start()).toBe(2);
  return Promise.all(ids.map(async (id) => (await queue.getJob(id))!.status));
}

describe('redis scripts as the functions of one library', () => {
  const track = useQueues();
  let server: PrivateServer;
  let admin: Redis;

  beforeAll(async () => {
    server = await startPrivateRedis();
    admin = new Redis({ port: server.port });
    await admin.call('ACL', 'SETUSER', 'nofunctions', 'on', '>secret', '~*', '&*', '+@all', '-function');
    await admin.call('ACL', 'SETUSER', 'nozadd', 'on', '>secret', '~*', '&*', '+@all', '-zadd');
    await admin.call('ACL', 'SETUSER', 'nofcall', 'on', '>secret', '~*', '&*', '+@all', '-fcall');
  }, 30_000);
  afterAll(async () => {
    admin.disconnect();
    await server.stop();
  });

  const queueAt = (url: string, keyPrefix: string) =>
    track(initJobQueue({ backend: 'redis', redisConfig: { url, keyPrefix } }));

  it('loads the library once per server and runs every call with FCALL', async () => {
    const before = await scriptCalls(admin);
    const first = queueAt(`redis://127.0.0.1:${server.port}`, 'fn-a:');
    const second = queueAt(`redis://127.0.0.1:${server.port}`, 'fn-b:');
    expect(await addAndRun(first)).toEqual(['completed', 'completed']);
    expect(await addAndRun(second)).toEqual(['completed', 'completed']);
    const after = await scriptCalls(admin);
    expect(after.evalsha - before.evalsha).toBe(0);
    expect(after.fcall - before.fcall).toBeGreaterThan(0);
    const loaded = await libraries(admin);
    expect([...loaded.keys()]).toEqual([library.name]);
    expect(loaded.get(library.name)).toEqual(
      Object.keys(scripts)
        .map((name) => `${library.name}_${name}`)
        .sort(),
    );
  });

  it('loads the library again when the server lost it, and the call that found it missing runs', async () => {
    const queue = queueAt(`redis://127.0.0.1:${server.port}`, 'fn-c:');
    // A first call (a script of its own) loads the library for this queue's client.
    expect(await queue.getJob(1)).toBeNull();
    expect([...(await libraries(admin)).keys()]).toEqual([library.name]);
    await admin.call('FUNCTION', 'FLUSH');
    expect((await libraries(admin)).size).toBe(0);
    expect(await addAndRun(queue)).toEqual(['completed', 'completed']);
    expect([...(await libraries(admin)).keys()]).toEqual([library.name]);
  });

  it('throws the error a script meets inside, without running it again by EVALSHA', async () => {
    const before = await scriptCalls(admin);
    const queue = queueAt(`redis://nozadd:secret@127.0.0.1:${server.port}`, 'fn-f:');
    // The add's script runs (the library loaded if needed) and meets the refused ZADD.
    const refused = /can't run this command or subcommand script: queuedev_\w+_addJob/;
    await expect(queue.addJob({ jobType: 'work', payload: {} })).rejects.toThrow(refused);
    await expect(queue.addJob({ jobType: 'work', payload: {} })).rejects.toThrow(refused);
    const after = await scriptCalls(admin);
    expect(after.evalsha - before.evalsha).toBe(0);
    expect(after.fcall - before.fcall).toBeGreaterThanOrEqual(2);
  });

  it('runs the scripts by EVALSHA where the server declines the library (a function name another library holds)', async () => {
    await admin.call('FUNCTION', 'FLUSH');
    await admin.call(
      'FUNCTION',
      'LOAD',
      `#!lua name=other\nredis.register_function('${library.name}_deleteJob', function() return 0 end)`,
    );
    try {
      const before = await scriptCalls(admin);
      const queue = queueAt(`redis://127.0.0.1:${server.port}`, 'fn-h:');
      expect(await addAndRun(queue)).toEqual(['completed', 'completed']);
      const after = await scriptCalls(admin);
      // One FCALL, answered `Function not found`; the load is declined, and EVALSHA runs the rest.
      expect(after.fcall - before.fcall).toBe(1);
      expect(after.evalsha - before.evalsha).toBeGreaterThan(0);
      expect([...(await libraries(admin)).keys()]).toEqual(['other']);
    } finally {
      await admin.call('FUNCTION', 'DELETE', 'other');
    }
  });

  // The denied user's first FCALL: none when FCALL is refused; one, answered `Function not
  // found`, when only loading the library is.
  it.each([
    { user: 'nofcall', command: 'FCALL', fcalls: 0 },
    { user: 'nofunctions', command: 'FUNCTION', fcalls: 1 },
  ])('runs the scripts by EVALSHA for a user the server does not let use $command', async ({ user, fcalls }) => {
    await admin.call('FUNCTION', 'FLUSH');
    const before = await scriptCalls(admin);
    const queue = queueAt(`redis://${user}:secret@127.0.0.1:${server.port}`, `fn-${user}:`);
    expect(await addAndRun(queue)).toEqual(['completed', 'completed']);
    const after = await scriptCalls(admin);
    expect(after.fcall - before.fcall).toBe(fcalls);
    expect(after.evalsha - before.evalsha).toBeGreaterThan(0);
    expect((await libraries(admin)).size).toBe(0);
  });
});

describe('redis scripts on a server without Functions', () => {
  const track = useQueues();
  let server: PrivateServer;
  let admin: Redis;

  beforeAll(async () => {
    // As on Redis 6: FCALL and FUNCTION are unknown commands.
    server = await startPrivateRedis({ args: ['--rename-command', 'FUNCTION', '', '--rename-command', 'FCALL', ''] });
    admin = new Redis({ port: server.port });
  }, 30_000);
  afterAll(async () => {
    admin.disconnect();
    await server.stop();
  });

  it('runs them by EVALSHA', async () => {
    await expect(admin.call('FUNCTION', 'LIST')).rejects.toThrow(/unknown command/i);
    await expect(admin.call('FCALL', 'f', '0')).rejects.toThrow(/unknown command/i);
    const queue = track(
      initJobQueue({ backend: 'redis', redisConfig: { url: `redis://127.0.0.1:${server.port}`, keyPrefix: 'fn-e:' } }),
    );
    expect(await addAndRun(queue)).toEqual(['completed', 'completed']);
    const calls = await scriptCalls(admin);
    expect(calls.fcall).toBe(0);
    expect(calls.evalsha).toBeGreaterThan(0);
  });
});
