/**
 * Queue configuration (SPEC §2.1, §7): a bad configuration fails at initJobQueue with a
 * ConfigError naming the field; `file://` TLS values are read from disk; driver access and the
 * `db` option are refused on the other backend; close() leaves a caller-owned pool or client open.
 */
import { pathToFileURL } from 'node:url';
import type { Redis } from 'ioredis';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { ConfigError, QueueError, UnsupportedOnBackendError } from '../../src/errors.js';
import { initJobQueue } from '../../src/queue.js';
import type { JobQueueConfig } from '../../src/types.js';
import { forEachBackend, itUnless, PG_URL, REDIS_URL } from '../helpers/backends.js';
import { PEM, useTlsFiles } from '../helpers/tls-files.js';
import { expectFailure } from './assertions.js';

const { missing } = useTlsFiles();

function init(config: unknown) {
  return () => initJobQueue(config as JobQueueConfig);
}

describe('initJobQueue configuration errors (§2.1, §7)', () => {
  it.each([
    ['no databaseConfig or pool (default backend)', {}, ['databaseConfig', 'pool', 'pglite']],
    ['no databaseConfig or pool (postgres)', { backend: 'postgres' }, ['databaseConfig', 'pool', 'pglite']],
    ['pglite with databaseConfig', { pglite: {}, databaseConfig: {} }, ['`pglite`', '`databaseConfig`', 'not both']],
    ['pglite with pool', { pglite: {}, pool: new pg.Pool() }, ['`pglite`', '`pool`', 'not both']],
    [
      'pglite not an object',
      { pglite: 'memory' },
      ['`pglite`', 'a PGlite instance or an object { dataDir? }', '"memory"'],
    ],
    ['an unknown key of pglite', { pglite: { dataDri: './data' } }, ['`pglite.dataDri`', 'dataDir']],
    ['an empty pglite.dataDir', { pglite: { dataDir: '' } }, ['`pglite.dataDir`', 'a non-empty string']],
    ['migrate not a boolean', { pglite: {}, migrate: 'yes' }, ['`migrate`', 'a boolean', '"yes"']],
    ['no redisConfig or client', { backend: 'redis' }, ['redisConfig', 'client']],
    [
      'unknown backend',
      { backend: 'mongo', databaseConfig: {} },
      ['`backend`', "'postgres' or 'redis'", '"mongo" (string)'],
    ],
    ['config not an object', 'postgres://x', ['`config`', 'object']],
    [
      'bad databaseConfig port',
      { databaseConfig: { port: 70_000 } },
      ['`databaseConfig.port`', 'between 1 and 65535', '70000 (number)'],
    ],
    ['string databaseConfig port', { databaseConfig: { port: '5432' } }, ['`databaseConfig.port`', '"5432" (string)']],
    [
      'bad redisConfig port',
      { backend: 'redis', redisConfig: { port: 0 } },
      ['`redisConfig.port`', 'between 1 and 65535'],
    ],
    ['empty connectionString', { databaseConfig: { connectionString: '' } }, ['`databaseConfig.connectionString`']],
    [
      'schema with a dash',
      { databaseConfig: {}, schema: 'my-schema' },
      ['`schema`', 'identifier', '"my-schema" (string)'],
    ],
    ['schema starting with a digit', { databaseConfig: {}, schema: '1queue' }, ['`schema`']],
    ['schema with SQL', { databaseConfig: {}, schema: 'x"; DROP TABLE job_queue; --' }, ['`schema`']],
    ['schema too long', { databaseConfig: {}, schema: 'a'.repeat(64) }, ['`schema`']],
    ['empty keyPrefix', { backend: 'redis', redisConfig: {}, keyPrefix: '' }, ['`keyPrefix`']],
    ['keyPrefix with a space', { backend: 'redis', redisConfig: {}, keyPrefix: 'my app:' }, ['`keyPrefix`', 'spaces']],
    [
      'keyPrefix with an empty hash tag',
      { backend: 'redis', redisConfig: {}, keyPrefix: '{}:' },
      ['`keyPrefix`', 'hash tag', '{}:'],
    ],
    [
      'keyPrefix with an unclosed brace',
      { backend: 'redis', redisConfig: {}, keyPrefix: 'app{' },
      ['`keyPrefix`', 'braces'],
    ],
    [
      'keyPrefix with two hash tags',
      { backend: 'redis', redisConfig: {}, keyPrefix: '{a}{b}:' },
      ['`keyPrefix`', 'one'],
    ],
    ['bad redisConfig.keyPrefix', { backend: 'redis', redisConfig: { keyPrefix: 'a b' } }, ['`keyPrefix`']],
    ['negative redis db', { backend: 'redis', redisConfig: { db: -1 } }, ['`redisConfig.db`']],
    ['pool that is not a pool', { pool: {} }, ['`pool`']],
    ['client that is not a client', { backend: 'redis', client: {} }, ['`client`']],
    ['verbose not a boolean', { databaseConfig: {}, verbose: 'yes' }, ['`verbose`', 'boolean']],
    ['clock without now()', { databaseConfig: {}, clock: {} }, ['`clock`']],
    [
      'rejectUnauthorized not a boolean',
      { databaseConfig: { ssl: { rejectUnauthorized: 'no' } } },
      ['`databaseConfig.ssl.rejectUnauthorized`'],
    ],
    [
      'sslmode with a custom CA',
      { databaseConfig: { connectionString: 'postgres://u@h/db?sslmode=require', ssl: { ca: PEM } } },
      ['sslmode', '`databaseConfig.connectionString`'],
    ],
    [
      'sslmode with rejectUnauthorized false',
      {
        databaseConfig: {
          connectionString: 'postgres://u@h/db?application_name=x&sslmode=verify-full',
          ssl: { rejectUnauthorized: false },
        },
      },
      ['sslmode'],
    ],
    [
      'a file:// CA that does not exist',
      { databaseConfig: { ssl: { ca: pathToFileURL(missing).href } } },
      ['`databaseConfig.ssl.ca`', 'does-not-exist.pem'],
    ],
    [
      'a file:// client key that does not exist',
      { databaseConfig: { ssl: { key: `file://${missing}` } } },
      ['`databaseConfig.ssl.key`'],
    ],
    [
      'a file:// redis CA that does not exist',
      { backend: 'redis', redisConfig: { tls: { ca: `file://${missing}` } } },
      ['`redisConfig.tls.ca`', 'does-not-exist.pem'],
    ],
  ] as const)('throws ConfigError at construction for %s', async (_label, config, message) => {
    const error = await expectFailure(init(config), ConfigError, { message: [...message] });
    expect(error).toBeInstanceOf(QueueError);
    expect((error as QueueError).code).toBe('CONFIG_INVALID');
  });
});

forEachBackend('driver access and ownership (§4.1, §2.1 rule 3, §7)', (ctx) => {
  it('getPool / getRedisClient return the caller-owned driver; the other one throws UnsupportedOnBackendError', () => {
    if (ctx.target === 'pglite') {
      // PGlite has no pool: getPool() says so and names the instance to use instead.
      expect(() => ctx.queue.getPool()).toThrow(UnsupportedOnBackendError);
      expect(() => ctx.queue.getPool()).toThrow('runs on PGlite, which has no pool');
      expect(() => ctx.queue.getRedisClient()).toThrow(UnsupportedOnBackendError);
    } else if (ctx.backend === 'postgres') {
      expect(ctx.queue.getPool()).toBe(ctx.sql);
      expect(() => ctx.queue.getRedisClient()).toThrow(UnsupportedOnBackendError);
    } else {
      expect(ctx.queue.getRedisClient()).toBe(ctx.redis);
      expect(() => ctx.queue.getPool()).toThrow(UnsupportedOnBackendError);
    }
  });

  it('close() leaves a caller-owned pool or client open', async () => {
    const q = ctx.makeQueue();
    await q.addJob({ jobType: 'a', payload: {} });
    await q.close();
    if (ctx.backend === 'postgres') expect((await ctx.sql.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    else expect(await ctx.redis.ping()).toBe('PONG');
    // The harness's own queue shares the same driver and still works.
    expect(await ctx.queue.getAllJobs()).toHaveLength(1);
  });

  itUnless(ctx, {
    'redis-cluster':
      'the library creates single-node clients only (redisConfig); a Cluster is always passed as `client`, which close() leaves open (tested above)',
    pglite:
      'the PGlite instance the library creates is not reachable from outside; test/pglite/pglite.test.ts reopens its data directory after close()',
  })('close() closes a driver the library created', async () => {
    if (ctx.backend === 'postgres') {
      const q = initJobQueue({ databaseConfig: { connectionString: PG_URL }, schema: ctx.schema });
      expect(await q.getAllJobs()).toEqual([]);
      const pool = q.getPool() as pg.Pool;
      await q.close();
      expect(pool.ended).toBe(true);
      await expect(pool.query('SELECT 1')).rejects.toThrow();
    } else {
      const q = initJobQueue({ backend: 'redis', redisConfig: { url: REDIS_URL }, keyPrefix: ctx.keyPrefix });
      expect(await q.getAllJobs()).toEqual([]);
      const client = q.getRedisClient() as Redis;
      await q.close();
      expect(['end', 'close']).toContain(client.status);
    }
  });

  if (ctx.backend === 'redis') {
    // `db` is a PostgreSQL transaction client; PostgreSQL's own behaviour is tested in test/postgres.
    it('refuses the db option with UnsupportedOnBackendError and writes nothing', async () => {
      const db = { query: async () => ({ rows: [], rowCount: 0 }) };
      await expectFailure(ctx.queue.addJob({ jobType: 'a', payload: {} }, { db }), UnsupportedOnBackendError);
      await expectFailure(ctx.queue.addJobs([{ jobType: 'a', payload: {} }], { db }), UnsupportedOnBackendError);
      expect(await ctx.queue.getAllJobs()).toEqual([]);
    });
  }
});
