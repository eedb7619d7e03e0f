import { describe, expect, it } from 'vitest';
import { postgresUrlProblem, redactConnectionString, redisUrlProblem } from './connection-strings.js';

describe('redactConnectionString', () => {
  it.each([
    ['postgres://app:s3cret@db:5432/app', 'postgres://app:[redacted]@db:5432/app'],
    ['postgres://app:p@ss/word@db/app', 'postgres://app:[redacted]@db/app'],
    ['app:s3cret@db/app', 'app:[redacted]@db/app'],
    ['host=db password=s3cret dbname=app', 'host=db password=[redacted] dbname=app'],
    ["host=db password='s 3cret'", 'host=db password=[redacted]'],
    ['postgres://db/app?password=s3cret&sslmode=require', 'postgres://db/app?password=[redacted]&sslmode=require'],
    ['postgres://app@db:5432/app', 'postgres://app@db:5432/app'],
    ['localhost:5432/app', 'localhost:5432/app'],
  ])('masks the password of %s', (text, expected) => {
    expect(redactConnectionString(text)).toBe(expected);
  });
});

describe('postgresUrlProblem and redisUrlProblem', () => {
  it.each([
    'postgres://db/app',
    'postgresql://u:p@db:6432/app?sslmode=require',
    '/var/run/postgresql app',
    'socket:/tmp?db=app',
  ])('accepts the PostgreSQL form %s', (value) => {
    expect(postgresUrlProblem(value)).toBeUndefined();
  });

  it.each([
    'redis://db:6379/2',
    'rediss://:p@db',
    'REDIS://db',
    '//db:6379/1',
    'db:6379',
    '6379',
    '/tmp/redis.sock?db=2',
  ])('accepts the Redis form %s', (value) => {
    expect(redisUrlProblem(value)).toBeUndefined();
  });

  it('refuses a port number out of range', () => {
    expect(redisUrlProblem('70000')).toContain('between 1 and 65535');
  });
});
