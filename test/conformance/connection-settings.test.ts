/**
 * Connection settings are checked when the queue is made, so a mistake never reaches the
 * driver, which would read it as something else (pg: the local server as the operating-system
 * user; ioredis: localhost:6379). A malformed connection string (no scheme, another scheme,
 * libpq's key=value form) fails initJobQueue, createPool and migrate() with a ConfigError naming
 * the field, the rule and the value with its password masked. So does a missing one (an unset
 * environment variable read into it), which the drivers would replace with their defaults. The
 * forms the drivers read as meant are accepted.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { createPool, migrate } from '../../src/index.js';
import { initJobQueue } from '../../src/queue.js';
import type { JobQueueConfig } from '../../src/types.js';
import { expectFailure } from './assertions.js';

const SECRET = 'Sup3r-s3cret-pw';

function init(config: unknown) {
  return () => initJobQueue(config as JobQueueConfig);
}

/** The queue (closed at once) when the configuration is accepted. */
async function accepted(config: unknown): Promise<void> {
  const queue = initJobQueue(config as JobQueueConfig);
  await queue.close();
}

/** The first call of a queue made from `config` (closed after it). */
afterEach(() => {
  vi.unstubAllEnvs();
});

describe('PostgreSQL connection strings', () => {
  it.each([
    [
      'no scheme',
      { connectionString: 'localhost:5432/app' },
      ['`databaseConfig.connectionString`', 'postgres://', '"localhost:5432/app"', 'no scheme'],
    ],
    [
      'an http:// URL',
      { connectionString: 'http://alice@db.internal:5432/app' },
      [
        '`databaseConfig.connectionString`',
        'http:// is not a PostgreSQL scheme',
        '"http://alice@db.internal:5432/app"',
      ],
    ],
    [
      "libpq's key=value form",
      { connectionString: `host=localhost dbname=app password=${SECRET}` },
      ['`databaseConfig.connectionString`', 'key=value', 'password=[redacted]'],
    ],
    ['a JDBC URL', { connectionString: 'jdbc:postgresql://localhost:5432/app' }, ['`jdbc:`']],
    [
      'a password with an unencoded #',
      { connectionString: `postgres://app:${SECRET}#1@localhost:5432/app` },
      ['percent-encode', 'postgres://app:[redacted]@localhost:5432/app'],
    ],
    [
      'a password without a scheme',
      { connectionString: `app:${SECRET}@localhost:5432/app` },
      ['no scheme', '"app:[redacted]@localhost:5432/app"'],
    ],
    ['spaces around it', { connectionString: ' postgres://localhost/app ' }, ['remove the spaces']],
    ['an empty string', { connectionString: '' }, ['`databaseConfig.connectionString`', 'empty']],
    ['a number', { connectionString: 5432 }, ['`databaseConfig.connectionString`', '5432 (number)']],
  ])('initJobQueue refuses %s with a ConfigError naming the field', async (_label, databaseConfig, message) => {
    const error = await expectFailure(init({ databaseConfig }), ConfigError, { message });
    expect(error.message).not.toContain(SECRET);
  });

  it.each([
    [
      'a connection string given as undefined (an unset variable)',
      { connectionString: undefined },
      ['`databaseConfig.connectionString`', 'got undefined', 'missing', 'environment variable'],
    ],
    ['a host given as undefined', { host: undefined, password: SECRET }, ['`databaseConfig.host`', 'missing']],
  ])(
    'initJobQueue refuses %s with a ConfigError naming it, before anything connects',
    async (_label, databaseConfig, message) => {
      const error = await expectFailure(init({ databaseConfig }), ConfigError, { message });
      expect(error.message).not.toContain(SECRET);
    },
  );

  it('createPool and migrate() refuse the same, naming their own field', async () => {
    await expectFailure(() => createPool({ connectionString: 'localhost:5432/app' }), ConfigError, {
      message: ['`databaseConfig.connectionString`', 'no scheme'],
    });
    await expectFailure(() => migrate({ databaseUrl: 'https://db.internal/app' }), ConfigError, {
      message: ['`databaseUrl`', 'https:// is not a PostgreSQL scheme'],
    });
    await expectFailure(() => migrate({ databaseUrl: undefined }), ConfigError, {
      message: ['`databaseUrl`', 'missing', 'environment variable'],
    });
    expect(() => createPool({ connectionString: undefined })).toThrow('`databaseConfig.connectionString`');
  });

  it('refuses settings that name no database unless a PG* variable is set for pg to read', async () => {
    for (const name of ['PGHOST', 'PGPORT', 'PGDATABASE', 'PGUSER']) vi.stubEnv(name, '');
    await expectFailure(init({ databaseConfig: {} }), ConfigError, {
      message: ['`databaseConfig` names no database', 'connectionString', 'PGHOST'],
    });
    await expectFailure(init({ databaseConfig: { password: SECRET } }), ConfigError, {
      message: ['names no database'],
    });
    expect(() => createPool({})).toThrow('names no database');
    vi.stubEnv('PGHOST', '127.0.0.1');
    await accepted({ databaseConfig: {} });
    // A connection string given as undefined is missing even then: it was meant to name the database.
    await expectFailure(init({ databaseConfig: { connectionString: undefined } }), ConfigError, {
      message: ['`databaseConfig.connectionString`', 'missing'],
    });
  });

  it.each([
    ['a postgres:// URL', { connectionString: `postgres://app:${SECRET}@localhost:5432/app?sslmode=disable` }],
    ['a postgresql:// URL', { connectionString: 'postgresql://localhost/app' }],
    ['an encoded socket host', { connectionString: 'postgres://%2Fvar%2Frun%2Fpostgresql/app' }],
    ['a socket directory and database', { connectionString: '/var/run/postgresql app' }],
    ['a socket: URL', { connectionString: 'socket:/var/run/postgresql?db=app' }],
    ['fields without a connection string', { host: 'localhost', database: 'app' }],
    ['a database alone', { database: 'app' }],
    ['an undefined connection string beside a host', { connectionString: undefined, host: 'localhost' }],
  ])('initJobQueue accepts %s', async (_label, databaseConfig) => {
    await accepted({ databaseConfig });
  });
});

describe('Redis URLs', () => {
  it.each([
    [
      'an http:// URL',
      { url: `http://:${SECRET}@cache.internal:6379` },
      ['`redisConfig.url`', 'http:// is not a Redis scheme', 'http://:[redacted]@cache.internal:6379'],
    ],
    ['a unix:// URL', { url: 'unix:///tmp/redis.sock' }, ['socket', '/tmp/redis.sock']],
    ['an upper-case rediss://', { url: 'REDISS://cache.internal:6380' }, ['lower case', 'TLS']],
    ['a path without a scheme', { url: 'localhost:6379/0' }, ['socket path', 'redis://localhost:6379/0']],
    ['a path that is no database number', { url: 'redis://localhost:6379/jobs' }, ['database number', '"/jobs"']],
    ['an unparsable port', { url: 'redis://localhost:63a9' }, ['does not parse as a URL']],
  ])('initJobQueue refuses %s with a ConfigError naming the field', async (_label, redisConfig, message) => {
    const error = await expectFailure(init({ backend: 'redis', redisConfig }), ConfigError, { message });
    expect(error.message).not.toContain(SECRET);
  });

  it.each([
    [
      'a URL given as undefined (an unset variable)',
      { url: undefined },
      ['`redisConfig.url`', 'got undefined', 'missing', 'environment variable'],
    ],
    ['a port given as undefined', { port: undefined, password: SECRET }, ['`redisConfig.port`', 'missing']],
  ])(
    'initJobQueue refuses %s with a ConfigError naming it, before anything connects',
    async (_label, redisConfig, message) => {
      const error = await expectFailure(init({ backend: 'redis', redisConfig }), ConfigError, { message });
      expect(error.message).not.toContain(SECRET);
    },
  );

  it.each([
    ['a redis:// URL with a database', { url: `redis://:${SECRET}@127.0.0.1:6379/0` }],
    ['host:port without a scheme', { url: '127.0.0.1:6379' }],
    ['a port number', { url: '6379' }],
    ['a socket path', { url: '/tmp/redis.sock' }],
    ['host and port fields', { host: '127.0.0.1', port: 6379 }],
    ["no setting (ioredis' default, localhost:6379)", {}],
  ])('initJobQueue accepts %s', async (_label, redisConfig) => {
    await accepted({ backend: 'redis', redisConfig });
  });
});
