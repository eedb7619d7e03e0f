/**
 * The public API surface of `queuedev` (src/index.ts): its runtime exports, and its types
 * checked with `expectTypeOf` (compiled by `tsc --noEmit`; `@ts-expect-error` lines fail the
 * type check when the error they expect disappears).
 */
import type { Cluster, Redis } from 'ioredis';
import type { Cluster as Cluster5, Redis as Redis5 } from 'ioredis5';
import type { PGlite, Transaction } from '@electric-sql/pglite';
import type { Meter, MeterProvider, TracerProvider } from '@opentelemetry/api';
import type pg from 'pg';
import { describe, expect, expectTypeOf, it } from 'vitest';
import * as api from '../../src/index.js';
import {
  batchDepRef,
  initJobQueue,
  type EditJobOptions,
  type JobCounts,
  type JobEvent,
  type JobHoldReason,
  type JobFilter,
  type JobQueryFilter,
  type JobPage,
  type JobPageOptions,
  type JobQueue,
  type JobQueueConfig,
  type JobRecord,
  type JobStatus,
  type PostgresPool,
  type RedisClient,
  type QueueEventMap,
  type TagQueryMode,
  type ThroughputMinute,
} from '../../src/index.js';

type Payloads = {
  email: { to: string; subject?: string };
  sms: { phone: string };
};

describe('public exports', () => {
  it('exports the queue, pool, clock and error values', () => {
    expect(typeof api.initJobQueue).toBe('function');
    expect(typeof api.batchDepRef).toBe('function');
    expect(typeof api.createPool).toBe('function');
    expect(typeof api.migrate).toBe('function');
    expect(typeof api.JobQueue).toBe('function');
    expect(typeof api.ManualClock).toBe('function');
    expect(typeof api.systemClock.now).toBe('function');
    for (const ErrorClass of [
      api.QueueError,
      api.ConfigError,
      api.ValidationError,
      api.DependencyError,
      api.UnsupportedOnBackendError,
      api.NotFoundError,
      api.HandlerSerializationError,
      api.JobTimeoutError,
      api.NoHandlerError,
      api.JobLostError,
      api.QueueClosedError,
      api.JobStatusError,
      api.DataDirLockedError,
    ]) {
      expect(ErrorClass.prototype).toBeInstanceOf(Error);
    }
    expect(new api.ConfigError('x')).toBeInstanceOf(api.QueueError);
    expect(new api.ValidationError('f', 'x')).toMatchObject({
      code: 'VALIDATION_FAILED',
      field: 'f',
      name: 'ValidationError',
    });
    expect(new api.DependencyError('x').code).toBe('DEPENDENCY_INVALID');
    expect(new api.UnsupportedOnBackendError('x').code).toBe('UNSUPPORTED_ON_BACKEND');
    expect(new api.QueueClosedError('x')).toMatchObject({ code: 'QUEUE_CLOSED', name: 'QueueClosedError' });
    const holder = { dataDir: '/data', lockFile: '/data/queuedev.lock', pid: 7, hostname: 'h' };
    expect(new api.DataDirLockedError('x', holder)).toMatchObject({ code: 'DATA_DIR_LOCKED', ...holder });
    expect(new api.JobStatusError(3, 'pending', 'x')).toMatchObject({
      code: 'JOB_STATUS_CONFLICT',
      name: 'JobStatusError',
      jobId: 3,
      status: 'pending',
    });
  });

  it('processor.stats() and close() options have the documented shapes', () => {
    expectTypeOf<api.ProcessorStats>().toEqualTypeOf<{
      running: boolean;
      concurrency: number;
      slotsInUse: number;
      claimedAhead: number;
      jobs: { id: number; jobType: string; startedAt: Date }[];
      abandoned: number;
    }>();
    expectTypeOf<api.Processor['stats']>().returns.toEqualTypeOf<api.ProcessorStats>();
    expectTypeOf<JobQueue['close']>().parameters.toEqualTypeOf<[options?: api.CloseOptions]>();
    expectTypeOf<api.ProcessorOptions['leaseCheckInterval']>().toEqualTypeOf<number | undefined>();
  });

  it('exports the status and tag mode lists', () => {
    expect(api.JOB_STATUSES).toEqual(['pending', 'processing', 'completed', 'failed', 'cancelled', 'waiting']);
    expect(api.TAG_QUERY_MODES).toEqual(['exact', 'all', 'any', 'none']);
  });
});

describe('public types', () => {
  it('initJobQueue<P> returns a queue typed by its payload map', () => {
    expectTypeOf(initJobQueue<Payloads>).returns.toExtend<JobQueue<Payloads>>();
    expectTypeOf(initJobQueue).parameter(0).toEqualTypeOf<JobQueueConfig>();
  });

  it('addJob checks the payload against the job type', () => {
    // Never called: only the types matter here.
    const typed = (q: JobQueue<Payloads>) => {
      expectTypeOf(q.addJob({ jobType: 'email', payload: { to: 'a@example.com' } })).toEqualTypeOf<Promise<number>>();
      void q.addJob({ jobType: 'sms', payload: { phone: '+100' }, priority: 1, tags: ['x'] });
      // @ts-expect-error the email payload needs `to`
      void q.addJob({ jobType: 'email', payload: { phone: '+100' } });
      // @ts-expect-error `to` must be a string
      void q.addJob({ jobType: 'email', payload: { to: 42 } });
      // @ts-expect-error unknown job type
      void q.addJob({ jobType: 'push', payload: {} });
      // @ts-expect-error payload is required
      void q.addJob({ jobType: 'email' });
      // @ts-expect-error maxAttempts is a number
      void q.addJob({ jobType: 'email', payload: { to: 'a' }, maxAttempts: '3' });
      expectTypeOf(q.addJobs([{ jobType: 'email', payload: { to: 'a' } }])).toEqualTypeOf<Promise<number[]>>();
      // @ts-expect-error unknown job type in a batch
      void q.addJobs([{ jobType: 'push', payload: {} }]);
    };
    expectTypeOf(typed).toBeFunction();
  });

  it('accepts a payload map declared as an interface', () => {
    interface InterfacePayloads {
      resize: { width: number };
    }
    const typed = (q: JobQueue<InterfacePayloads>) => {
      void q.addJob({ jobType: 'resize', payload: { width: 100 } });
      // @ts-expect-error width must be a number
      void q.addJob({ jobType: 'resize', payload: { width: 'wide' } });
    };
    expectTypeOf(typed).toBeFunction();
  });

  it('records, events, filters and hooks have the documented shapes', () => {
    const typed = (q: JobQueue<Payloads>) => {
      expectTypeOf(q.getJob(1)).toEqualTypeOf<Promise<JobRecord<Payloads['email'] | Payloads['sms']> | null>>();
      expectTypeOf(q.getJob<'sms'>(1)).toEqualTypeOf<Promise<JobRecord<{ phone: string }> | null>>();
      expectTypeOf<JobQueue<Payloads>['getJobs']>().parameter(0).toEqualTypeOf<JobFilter | undefined>();
      expectTypeOf<JobQueue<Payloads>['getJobsByStatus']>().parameter(0).toEqualTypeOf<JobStatus>();
      expectTypeOf<JobQueue<Payloads>['queryJobs']>().parameter(0).toEqualTypeOf<JobQueryFilter | undefined>();
      expectTypeOf(q.queryJobs({ status: 'failed', jobType: 'email' }, 10, 0)).toEqualTypeOf<Promise<JobRecord[]>>();
      expectTypeOf(q.queryJobsPage({ status: 'failed' }, { limit: 10, after: null })).toEqualTypeOf<Promise<JobPage>>();
      expectTypeOf<JobPage['nextAfter']>().toEqualTypeOf<number | null>();
      expectTypeOf<JobQueue<Payloads>['queryJobsPage']>().parameter(1).toEqualTypeOf<JobPageOptions | undefined>();
      // @ts-expect-error a keyset page goes on from `after`, not from an offset
      void q.queryJobsPage({}, { offset: 10 });
      // @ts-expect-error status is one of the job statuses
      void q.queryJobs({ status: 'done' });
      // @ts-expect-error the queue's store is not part of its type
      // eslint-disable-next-line @typescript-eslint/no-unused-expressions -- reading the property is the type check; the function is never called
      q.backend;
      expectTypeOf<JobQueue<Payloads>['getJobsByTags']>().parameter(1).toEqualTypeOf<TagQueryMode | undefined>();
      expectTypeOf(q.getJobEvents(1)).toEqualTypeOf<Promise<JobEvent[]>>();
      expectTypeOf(q.getHoldReasons([1])).toEqualTypeOf<Promise<(JobHoldReason | null)[]>>();
      expectTypeOf(q.getJobTypes('email.')).toEqualTypeOf<Promise<string[]>>();
      void q.queryJobs({ jobTypePrefix: 'email.', payloadContains: 'alice' });
      void q.getJobs({ jobTypePrefix: 'email.' });
      // @ts-expect-error payloadContains is a queryJobs member only, not of the job filter
      void q.getJobs({ payloadContains: 'alice' });
      expectTypeOf(q.getJobCounts({ limit: 100 })).toEqualTypeOf<Promise<JobCounts>>();
      expectTypeOf<JobCounts['byStatus']>().toEqualTypeOf<Record<JobStatus, number>>();
      expectTypeOf<JobCounts['atLeast']>().toEqualTypeOf<JobStatus[]>();
      expectTypeOf(q.getThroughput({ minutes: 5 })).toEqualTypeOf<Promise<ThroughputMinute[]>>();
      expectTypeOf<ThroughputMinute['minute']>().toEqualTypeOf<Date>();
      // @ts-expect-error the options of getJobCounts are { limit? }
      void q.getJobCounts({ max: 10 });
      expectTypeOf(q.cancelAllUpcomingJobs()).toEqualTypeOf<Promise<number>>();
      expectTypeOf(q.editAllPendingJobs(undefined, { priority: 1 })).toEqualTypeOf<Promise<number>>();
      expectTypeOf(q.cleanupOldJobs(30)).toEqualTypeOf<Promise<number>>();
      expectTypeOf(q.triggerCronJob(1)).toEqualTypeOf<Promise<number | null>>();
      // @ts-expect-error jobType cannot be edited
      void q.editJob(1, { jobType: 'sms' });
      void q.editJob(1, {
        retryDelay: null,
        retryBackoff: null,
        retryDelayMax: null,
        deadLetterJobType: null,
        runAt: null,
      });

      q.on('job:failed', (e) => {
        expectTypeOf(e).toEqualTypeOf<QueueEventMap['job:failed']>();
        expectTypeOf(e.willRetry).toEqualTypeOf<boolean>();
        expectTypeOf(e.error).toEqualTypeOf<Error>();
      });
      q.on('job:added', (e) => expectTypeOf(e).toEqualTypeOf<{ jobId: number; jobType: string }>());
      q.on('error', (e) => expectTypeOf(e).toEqualTypeOf<Error>());
      // @ts-expect-error unknown event name
      q.on('job:exploded', () => undefined);
      // @ts-expect-error the job:cancelled payload has no jobType
      q.on('job:cancelled', (e) => e.jobType);
    };
    expectTypeOf(typed).toBeFunction();

    expectTypeOf<JobRecord['updated_at']>().toEqualTypeOf<Date>();
    expectTypeOf<JobRecord['updatedAt']>().toEqualTypeOf<Date>();
    expectTypeOf<JobRecord['locked_at']>().toEqualTypeOf<Date | null>();
    expectTypeOf<JobRecord['locked_by']>().toEqualTypeOf<string | null>();
    expectTypeOf<JobRecord['status']>().toEqualTypeOf<
      'pending' | 'processing' | 'completed' | 'failed' | 'cancelled' | 'waiting'
    >();
    expectTypeOf<JobRecord['failureReason']>().toEqualTypeOf<'timeout' | 'handler_error' | 'no_handler' | null>();
    expectTypeOf<TagQueryMode>().toEqualTypeOf<'exact' | 'all' | 'any' | 'none'>();
    expectTypeOf<EditJobOptions>().not.toHaveProperty('jobType');
    expectTypeOf(batchDepRef).returns.toEqualTypeOf<number>();
  });

  it('the configuration union is discriminated by backend', () => {
    expectTypeOf<{ databaseConfig: { connectionString: string } }>().toExtend<JobQueueConfig>();
    expectTypeOf<{ backend: 'redis'; redisConfig: { url: string } }>().toExtend<JobQueueConfig>();
    const typed = () => {
      // @ts-expect-error redisConfig belongs to the redis backend
      initJobQueue({ backend: 'postgres', redisConfig: { url: 'redis://x' } });
      // @ts-expect-error unknown backend
      initJobQueue({ backend: 'mongo', databaseConfig: {} });
    };
    expectTypeOf(typed).toBeFunction();
  });

  it('accepts a pg.Pool as `pool` and an ioredis 5 or 6 Redis or Cluster as `client`, and nothing else', () => {
    expectTypeOf<pg.Pool>().toExtend<PostgresPool>();
    expectTypeOf<Redis>().toExtend<RedisClient>();
    expectTypeOf<Cluster>().toExtend<RedisClient>();
    expectTypeOf<Redis5>().toExtend<RedisClient>();
    expectTypeOf<Cluster5>().toExtend<RedisClient>();
    const typed = (pool: pg.Pool, client: Cluster, single: pg.Client) => {
      initJobQueue({ pool });
      initJobQueue({ backend: 'redis', client });
      // @ts-expect-error a pg.Client is no pool (it cannot check out connections)
      initJobQueue({ pool: single });
      // @ts-expect-error a Redis client belongs to the redis backend
      initJobQueue({ backend: 'postgres', client });
    };
    expectTypeOf(typed).toBeFunction();
  });

  it('accepts a PGlite instance or { dataDir? } as `pglite`, and a PGlite transaction as `db`', () => {
    expectTypeOf<PGlite>().toExtend<api.PGliteInstance>();
    expectTypeOf<Transaction>().toExtend<api.Queryable>();
    const typed = (db: PGlite, tx: Transaction, pool: pg.Pool) => {
      initJobQueue({ pglite: db, migrate: true });
      initJobQueue({ pglite: { dataDir: './data' } });
      void initJobQueue({ pglite: {} }).addJob({ jobType: 'a', payload: {} }, { db: tx });
      void api.migrate({ pglite: db });
      // @ts-expect-error dataDir is a path
      initJobQueue({ pglite: { dataDir: 1 } });
      // @ts-expect-error a pg.Pool is not a PGlite instance
      initJobQueue({ pglite: pool });
    };
    expectTypeOf(typed).toBeFunction();
  });

  it('takes the OpenTelemetry API providers and Meter as they are typed, without naming the package', () => {
    expectTypeOf<TracerProvider>().toExtend<NonNullable<api.TelemetryConfig['tracerProvider']>>();
    expectTypeOf<MeterProvider>().toExtend<NonNullable<api.TelemetryConfig['meterProvider']>>();
    expectTypeOf<Meter>().toExtend<api.QueueDepthMeter>();
    const typed = (tracerProvider: TracerProvider, meterProvider: MeterProvider, meter: Meter) => {
      initJobQueue({ pool: {} as pg.Pool, telemetry: { tracerProvider, meterProvider } });
      initJobQueue({ backend: 'redis', client: {} as Redis, telemetry: false });
      expectTypeOf(api.registerQueueDepthGauge(meter, async () => ({ pending: 1 }))).toEqualTypeOf<() => void>();
      // @ts-expect-error a tracer is not a tracer provider
      initJobQueue({ pool: {} as pg.Pool, telemetry: { tracerProvider: {} } });
      // @ts-expect-error true, false or the providers
      initJobQueue({ pool: {} as pg.Pool, telemetry: 'on' });
    };
    expectTypeOf(typed).toBeFunction();
  });
});
