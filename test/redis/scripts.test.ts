/**
 * Lua scripts: atomicity of the add-jobs script, and the build of lua.generated.ts (up to date,
 * every header stating its contract, every key declared).
 */
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GENERATED_FILE, LUA_DIR, LuaBuildError, buildLibrary, buildScripts, run } from '../../scripts/build-lua.js';
import { DependencyError } from '../../src/errors.js';
import { library, scripts } from '../../src/backends/redis/lua.generated.js';
import { KEY_NAMES } from '../../src/backends/redis/keys.js';
import type { JobOptions } from '../../src/types.js';
import { Redis } from 'ioredis';
import { REDIS_URL } from '../helpers/backends.js';
import { useRedis } from './support.js';

describe('add-jobs script atomicity', () => {
  const ctx = useRedis();

  const batch = (badIndex: number, badId: number): JobOptions[] =>
    Array.from({ length: 100 }, (_, i) => ({
      jobType: 'bulk',
      payload: { i },
      tags: ['bulk'],
      idempotencyKey: `key-${i}`,
      ...(i > 0 ? { dependsOn: { jobIds: [i === badIndex ? badId : -i] } } : {}),
    }));

  it('writes nothing when one job of a batch of 100 depends on an unknown id', async () => {
    const q = ctx.queue();
    const error = await q.addJobs(batch(57, 424_242)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DependencyError);
    expect((error as Error).message).toContain('424242');
    // Only the store's identity, written when the queue first uses the store (identity.ts).
    expect(await ctx.keys()).toEqual([`${ctx.prefix}{q}:meta`]);
  });

  it('writes nothing when a dependency already ended cancelled', async () => {
    const q = ctx.queue();
    const ended = await q.addJob({ jobType: 'first', payload: {} });
    await q.cancelJob(ended);
    const snapshot = await dump(() => ctx.keys(), ctx.redis);
    await expect(q.addJobs(batch(99, ended))).rejects.toThrow(DependencyError);
    expect(await dump(() => ctx.keys(), ctx.redis)).toEqual(snapshot);
  });

  it('inserts the whole batch when every dependency is valid', async () => {
    const q = ctx.queue();
    const ids = await q.addJobs(batch(-1, 0));
    expect(ids).toHaveLength(100);
    expect((await q.getJob(ids[99]!))?.dependsOnJobIds).toEqual([ids[98]]);
    expect(await q.getJobsByTags(['bulk'])).toHaveLength(100);
  });
});

/** Every key's type and contents, to compare a namespace before and after. */
async function dump(keys: () => Promise<string[]>, redis: ReturnType<typeof useRedis>['redis']) {
  const out: Record<string, unknown> = {};
  for (const key of await keys()) {
    const type = await redis.type(key);
    if (type === 'string') out[key] = await redis.get(key);
    else if (type === 'hash') out[key] = await redis.hgetall(key);
    else if (type === 'zset') out[key] = await redis.zrange(key, 0, '-1', 'WITHSCORES');
    else if (type === 'list') out[key] = await redis.lrange(key, 0, '-1');
    else out[key] = type;
  }
  return out;
}

describe('script registration', () => {
  const ctx = useRedis();

  it('compiles every generated script in Redis', async () => {
    for (const script of Object.values(scripts)) {
      expect(await ctx.redis.script('LOAD', script.source), script.name).toMatch(/^[0-9a-f]{40}$/);
    }
  });

  it('compiles the library of every script in Redis, with one function per script', async () => {
    const loaded = await ctx.redis.call('FUNCTION', 'LOAD', library.source).catch((e: unknown) => String(e));
    expect(String(loaded)).toMatch(new RegExp(`^(${library.name}|.*already exists)`));
    const listed = (await ctx.redis.call('FUNCTION', 'LIST', 'LIBRARYNAME', library.name)) as unknown[][];
    const functions = listed[0]![listed[0]!.indexOf('functions') + 1] as unknown[][];
    expect(functions.map((f) => String(f[1])).sort()).toEqual(
      Object.keys(scripts)
        .map((name) => `${library.name}_${name}`)
        .sort(),
    );
  });

  it('registers the scripts as queuedev-prefixed commands, once per client', () => {
    const q = ctx.queue();
    const commands = ctx.redis as unknown as Record<string, unknown>;
    expect(typeof commands.queuedevAddJobs).toBe('function');
    expect(typeof commands.queuedevClaimJobs).toBe('function');
    const before = commands.queuedevAddJobs;
    ctx.queue({ prefix: `${ctx.prefix}other:` });
    expect(commands.queuedevAddJobs).toBe(before);
    expect(q.getRedisClient()).toBe(ctx.redis);
  });
});

describe('lua.generated.ts', () => {
  let temps: string[] = [];
  afterEach(() => {
    for (const dir of temps) rmSync(dir, { recursive: true, force: true });
    temps = [];
  });

  /** A Lua directory holding one script, with the real includes. */
  function luaDirWith(source: string): string {
    const dir = mkdtempSync(join(tmpdir(), 'queuedev-lua-'));
    temps.push(dir);
    mkdirSync(join(dir, 'includes'));
    for (const f of readdirSync(join(LUA_DIR, 'includes'))) {
      writeFileSync(join(dir, 'includes', f), readFileSync(join(LUA_DIR, 'includes', f)));
    }
    writeFileSync(join(dir, 'probe.lua'), source);
    return dir;
  }

  it('is up to date with the Lua sources (build-lua --check passes)', () => {
    expect(run({ check: true })).toEqual({ ok: true, message: expect.stringContaining('up to date') });
  });

  it('--check reports a stale module', () => {
    const dir = luaDirWith('--[[ Probe. KEYS[1] jobs; ARGV[1] id. Returns 1. ]]\nreturn 1\n');
    const out = join(dir, 'generated.ts');
    writeFileSync(out, '// old\n');
    const result = run({ check: true, luaDir: dir, outFile: out });
    expect(result.ok).toBe(false);
    expect(result.message).toMatch(/stale.*npm run build:lua/);
  });

  it('holds every script of lua/, each opening with a header declaring KEYS, ARGV and Returns', () => {
    const files = readdirSync(LUA_DIR).filter((f) => f.endsWith('.lua'));
    expect(Object.keys(scripts).length).toBe(files.length);
    for (const file of files) {
      const text = readFileSync(join(LUA_DIR, file), 'utf8');
      const header = text.slice(0, text.indexOf(']]') + 2);
      expect(header.startsWith('--[['), file).toBe(true);
      expect(header, file).toMatch(/KEYS\[1\] /);
      expect(header, file).toMatch(/ARGV\[1\] /);
      expect(header, file).toMatch(/Returns /);
    }
    for (const script of Object.values(scripts)) {
      expect(script.keys.length, script.name).toBeGreaterThan(0);
      for (const key of script.keys) expect(KEY_NAMES, script.name).toContain(key);
      // Keys reach the script only through KEYS: no key name is built inside Lua.
      expect(script.source, script.name).not.toMatch(/\{q\}/);
    }
  });

  it('refuses a script that uses a key its header does not declare', () => {
    const dir = luaDirWith(
      "--[[ Probe. KEYS[1] jobs; ARGV[1] id. Returns 1. ]]\nredis.call('HDEL', K['payloads'], ARGV[1])\nreturn 1\n",
    );
    expect(() => buildScripts(dir)).toThrow(LuaBuildError);
    expect(() => buildScripts(dir)).toThrow(/probe\.lua: uses keys its header does not declare: payloads/);
  });

  it('refuses a script that builds a key name in Lua or reads KEYS directly (unsafe on a Redis Cluster)', () => {
    const built = luaDirWith(
      "--[[ Probe. KEYS[1] jobs; ARGV[1] id. Returns 1. ]]\nredis.call('HGET', ARGV[2] .. ':jobs', ARGV[1])\nreturn 1\n",
    );
    expect(() => buildScripts(built)).toThrow(/probe\.lua: builds a key name inside Lua \(ARGV\[2\] \.\. ':jobs'\)/);
    const quoted = luaDirWith(
      "--[[ Probe. KEYS[1] jobs; ARGV[1] id. Returns 1. ]]\nredis.call('GET', 'dq:{q}:id')\nreturn 1\n",
    );
    expect(() => buildScripts(quoted)).toThrow(/builds a key name inside Lua/);
    const raw = luaDirWith(
      "--[[ Probe. KEYS[1] jobs; ARGV[1] id. Returns 1. ]]\nredis.call('HGET', KEYS[1], ARGV[1])\nreturn 1\n",
    );
    expect(() => buildScripts(raw)).toThrow(/probe\.lua: reads KEYS\[\.\.\.\] directly/);
    // Keys through K, or through a variable holding a K entry, are fine.
    const fine = luaDirWith(
      "--[[ Probe. KEYS[1] jobs; ARGV[1] id. Returns 1. ]]\nlocal key = K['jobs']\nredis.call('HGET', key, ARGV[1])\nredis.call('HGET', K['jobs'], ARGV[1] .. 'x')\nreturn 1\n",
    );
    expect(buildScripts(fine).map((s) => s.name)).toContain('probe');
  });

  it('counts included helpers: a status change needs every status key', () => {
    const dir = luaDirWith(
      '--[[ Probe. KEYS[1] jobs; ARGV[1] id. Returns 1. ]]\n--- @include "util"\n--- @include "job"\n--- @include "state"\nreturn 1\n',
    );
    expect(() => buildScripts(dir)).toThrow(/status:pending/);
  });

  it('refuses a header without Returns, or with keys out of order', () => {
    expect(() => buildScripts(luaDirWith('--[[ Probe. KEYS[1] jobs; ARGV[1] id. ]]\nreturn 1\n'))).toThrow(/Returns/);
    expect(() =>
      buildScripts(luaDirWith('--[[ Probe. KEYS[1] jobs, KEYS[3] payloads; ARGV[1] id. Returns 1. ]]\nreturn 1\n')),
    ).toThrow(/KEYS\[3\] is out of order/);
  });

  /** A Lua directory holding `files` (scripts, and includes under includes/) and nothing else. */
  function luaDirOf(files: Record<string, string>): string {
    const dir = mkdtempSync(join(tmpdir(), 'queuedev-lua-'));
    temps.push(dir);
    mkdirSync(join(dir, 'includes'));
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    return dir;
  }

  const counter = [
    '-- A per-call counter.',
    'local count = 0',
    'local function bump()',
    '  count = count + 1',
    '  return count',
    'end',
  ].join('\n');

  /** Two scripts sharing the counter include, built into a library. */
  function counterLibrary() {
    const dir = luaDirOf({
      'includes/counter.lua': counter,
      'first.lua': '--[[ First. KEYS[1] jobs; ARGV[1] x. Returns 1. ]]\n--- @include "counter"\nreturn bump()\n',
      'second.lua':
        '--[[ Second. KEYS[1] jobs; ARGV[1] x. Returns 2. ]]\n--- @include "counter"\nbump()\nreturn bump()\n',
    });
    return buildLibrary(buildScripts(dir), dir);
  }

  it('defines each include once in the library, its other statements again at the start of each function', () => {
    const built = counterLibrary();
    expect(built.name).toMatch(/^queuedev_[0-9a-f]{12}$/);
    expect(built.source.startsWith(`#!lua name=${built.name}\n`)).toBe(true);
    expect(built.source.match(/local function bump\(\)/g)).toHaveLength(1);
    expect(built.source).toMatch(/^local count$/m);
    for (const name of ['first', 'second']) {
      expect(built.source).toContain(
        `redis.register_function('${built.name}_${name}', function(keys, args)\nK = { ['jobs'] = keys[1] }\nARGV = args\ncount = 0\n`,
      );
    }
  });

  it('gives every call of a library function the per-call state an EVAL of the script starts with', async () => {
    const built = counterLibrary();
    const redis = new Redis(REDIS_URL);
    try {
      await redis.call('FUNCTION', 'LOAD', 'REPLACE', built.source);
      const call = (name: string) => redis.fcall(`${built.name}_${name}`, 1, 'probe:{q}:jobs', 'x');
      // The counter starts at 0 in every call, as in a script run by EVAL.
      expect([await call('first'), await call('first'), await call('second'), await call('first')]).toEqual([
        1, 1, 2, 1,
      ]);
    } finally {
      await redis.call('FUNCTION', 'DELETE', built.name);
      redis.disconnect();
    }
  });

  it("refuses two includes that define the same name, and code before a script's includes", () => {
    const twice = luaDirOf({
      'includes/counter.lua': counter,
      'includes/other.lua': 'local function bump()\n  return 0\nend',
      'probe.lua':
        '--[[ Probe. KEYS[1] jobs; ARGV[1] x. Returns 1. ]]\n--- @include "counter"\n--- @include "other"\nreturn 1\n',
    });
    expect(() => buildLibrary(buildScripts(twice), twice)).toThrow(
      /includes\/other\.lua and includes\/counter\.lua both define "bump"/,
    );
    const late = luaDirOf({
      'includes/counter.lua': counter,
      'probe.lua':
        '--[[ Probe. KEYS[1] jobs; ARGV[1] x. Returns 1. ]]\nlocal x = 1\n--- @include "counter"\nreturn x\n',
    });
    expect(() => buildScripts(late)).toThrow(/probe\.lua: code before its last --- @include line \("local x = 1"\)/);
  });

  it('starts with the generated-file notice', () => {
    expect(readFileSync(GENERATED_FILE, 'utf8').split('\n')[0]).toBe(
      '// Generated by scripts/build-lua.ts; do not edit',
    );
  });
});
