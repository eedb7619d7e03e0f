/**
 * A program using queuedev as an application would, compiled by exact-optional.test.ts with the
 * strictest common settings (those of `@tsconfig/strictest`, `exactOptionalPropertyTypes`
 * among them, which `tsc --init` turns on) under node16 and bundler resolution. It is never
 * run: each `@ts-expect-error` line must fail to compile, and every other line must compile.
 */
import {
  initJobQueue,
  type CloseOptions,
  type CronJobOptions,
  type JobFilter,
  type JobHandlers,
  type JobOptions,
  type JsonForm,
  type ProcessorOptions,
  type SupervisorOptions,
} from 'queuedev';
import { createQueueDashboard } from 'queuedev/dashboard';
import { expectTypeOf } from 'vitest';

/** A value the program may or may not have, as an unset environment variable. */
declare const maybeNumber: number | undefined;
declare const maybeFlag: boolean | undefined;

/** Recursive types: a JSON value as applications declare it, and a tree holding dates. */
type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
interface Folder {
  name: string;
  createdAt: Date;
  children: Folder[];
}

type Payloads = {
  remind: { userId: number; when: Date; note?: string };
  report: { days: Date[]; range: [Date, Date] };
  sync: { metadata: JsonValue; root: Folder };
};

// Options read from the environment pass straight through: undefined is an option left out.
export const queue = initJobQueue<Payloads>({ databaseConfig: { connectionString: process.env['DATABASE_URL'] } });
export const redisQueue = initJobQueue({
  backend: 'redis',
  redisConfig: { url: process.env['REDIS_URL'], keyPrefix: process.env['QUEUE_PREFIX'] },
  verbose: maybeFlag,
});
export const job: JobOptions<Payloads, 'remind'> = {
  jobType: 'remind',
  payload: { userId: 1, when: new Date(), note: 'bring the keys' },
  timeoutMs: maybeNumber,
  idempotencyKey: process.env['KEY'],
  group: { id: 'user:1', tier: undefined },
};
export const filter: JobFilter = { jobType: process.env['JOB_TYPE'], tags: { values: ['a'], mode: undefined } };
export const processorOptions: ProcessorOptions = {
  concurrency: maybeNumber,
  workerId: process.env['WORKER_ID'],
  onError: undefined,
};
export const supervisorOptions: SupervisorOptions = { intervalMs: maybeNumber, verbose: maybeFlag };
export const cron: CronJobOptions<Payloads, 'report'> = {
  scheduleName: 'weekly',
  cronExpression: '0 3 * * 1',
  jobType: 'report',
  payload: { days: [], range: [new Date(), new Date()] },
  timezone: process.env['TZ'],
};
export const closeOptions: CloseOptions = { timeoutMs: maybeNumber };

// A handler receives the payload's JSON form: a Date is its ISO string.
export const handlers: JobHandlers<Payloads> = {
  remind: async (payload) => {
    expectTypeOf(payload).toEqualTypeOf<{ userId: number; when: string; note?: string | undefined }>();
    // @ts-expect-error a Date arrives as a string (JSON has no dates): parse it first
    payload.when.getTime();
    return new Date(payload.when).getTime() - Date.now();
  },
  report: (payload) => {
    expectTypeOf(payload.days).toEqualTypeOf<string[]>();
    expectTypeOf(payload.range).toEqualTypeOf<[string, string]>();
  },
  sync: (payload) => {
    expectTypeOf(payload.metadata).toEqualTypeOf<JsonValue>();
    expectTypeOf(payload.root.children[0]?.children[0]?.createdAt).toEqualTypeOf<string | undefined>();
  },
};

export async function run(): Promise<void> {
  // addJob takes the payload as the map declares it, Date included.
  await queue.addJob({ jobType: 'remind', payload: { userId: 1, when: new Date() }, priority: maybeNumber });
  await queue.addJob(job);
  const stored = await queue.getJob<'remind'>(1);
  expectTypeOf(stored?.payload.when).toEqualTypeOf<string | undefined>();
  await queue.editJob(1, { priority: maybeNumber, runAt: undefined });
  await queue.createToken({ timeout: process.env['TOKEN_TIMEOUT'] });
  queue.createProcessor(handlers, processorOptions);
  queue.createSupervisor(supervisorOptions);
  createQueueDashboard({ jobQueue: queue, jobHandlers: handlers, basePath: '/jobs', readOnly: maybeFlag });
  await queue.close(closeOptions);
}

// What JSON keeps of a value, and what it makes of the rest.
expectTypeOf<
  JsonForm<{
    when: Date;
    count: number;
    optional?: string;
    maybe: string | undefined;
    callback: () => void;
    list: (Date | undefined)[];
    nested: { at: Date; tags: readonly string[] };
    data: unknown;
  }>
>().toEqualTypeOf<{
  when: string;
  count: number;
  optional?: string | undefined;
  maybe?: string | undefined;
  list: (string | null)[];
  nested: { at: string; tags: readonly string[] };
  data: unknown;
}>();
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- an untyped payload stays untyped
expectTypeOf<JsonForm<any>>().toBeAny();

// A payload map holding what addJob refuses at run time does not compile.
// @ts-expect-error a function is not JSON
initJobQueue<{ notify: { callback: () => void } }>({ pglite: {} });
// @ts-expect-error a bigint is not JSON
initJobQueue<{ charge: { cents: bigint } }>({ pglite: {} });
// @ts-expect-error a symbol is not JSON
initJobQueue<{ tag: { key: symbol } }>({ pglite: {} });
// @ts-expect-error a Map is not a plain object (JSON would write {})
initJobQueue<{ index: { byId: Map<string, number> } }>({ pglite: {} });
// @ts-expect-error the whole payload cannot be undefined
initJobQueue<{ ping: undefined }>({ pglite: {} });
