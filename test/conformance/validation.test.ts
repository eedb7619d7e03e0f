/**
 * Bad input (SPEC §7, DETAILS "Errors"): each gets a ValidationError (or DependencyError) whose
 * `field` and message name the field and the rule, and nothing is written.
 */
import { expect, it } from 'vitest';
import { QueueError, ValidationError } from '../../src/errors.js';
import type { EditJobOptions, JobFilter, JobOptions, JobStatus, TagQueryMode } from '../../src/types.js';
import { forEachBackend } from '../helpers/backends.js';
import { expectFailure, ids } from './assertions.js';

/** An invalid job: the options, the field named in the error, and fragments of the message. */
type BadJob = [label: string, options: unknown, field: string, message: string[]];

const circular: Record<string, unknown> = { a: 1 };
circular.self = circular;

const BAD_JOBS: BadJob[] = [
  ['missing jobType', { payload: {} }, 'jobType', ['`jobType`', 'non-empty string', 'undefined']],
  ['empty jobType', { jobType: '', payload: {} }, 'jobType', ['`jobType`', 'non-empty string', '"" (string)']],
  ['blank jobType', { jobType: '   ', payload: {} }, 'jobType', ['`jobType`', 'non-empty string']],
  ['numeric jobType', { jobType: 5, payload: {} }, 'jobType', ['`jobType`', 'non-empty string', '5 (number)']],
  ['missing payload', { jobType: 'a' }, 'payload', ['`payload`', 'required']],
  ['undefined payload', { jobType: 'a', payload: undefined }, 'payload', ['`payload`', 'required']],
  [
    'non-integer maxAttempts',
    { jobType: 'a', payload: {}, maxAttempts: 2.5 },
    'maxAttempts',
    ['`maxAttempts`', 'integer >= 1', '2.5 (number)'],
  ],
  [
    'maxAttempts 0',
    { jobType: 'a', payload: {}, maxAttempts: 0 },
    'maxAttempts',
    ['`maxAttempts`', 'integer >= 1', '0 (number)'],
  ],
  [
    'string maxAttempts',
    { jobType: 'a', payload: {}, maxAttempts: '3' },
    'maxAttempts',
    ['`maxAttempts`', 'integer', '"3" (string)'],
  ],
  ['priority NaN', { jobType: 'a', payload: {}, priority: Number.NaN }, 'priority', ['`priority`', 'integer', 'NaN']],
  [
    'priority Infinity',
    { jobType: 'a', payload: {}, priority: Infinity },
    'priority',
    ['`priority`', 'integer', 'Infinity'],
  ],
  [
    "priority 'high'",
    { jobType: 'a', payload: {}, priority: 'high' },
    'priority',
    ['`priority`', 'integer', '"high" (string)'],
  ],
  ['fractional priority', { jobType: 'a', payload: {}, priority: 1.5 }, 'priority', ['`priority`', 'integer']],
  [
    'invalid runAt Date',
    { jobType: 'a', payload: {}, runAt: new Date('nope') },
    'runAt',
    ['`runAt`', 'valid Date', 'Invalid Date'],
  ],
  ['runAt string', { jobType: 'a', payload: {}, runAt: '2030-01-01' }, 'runAt', ['`runAt`', 'valid Date']],
  ['runAt number', { jobType: 'a', payload: {}, runAt: 1_900_000_000_000 }, 'runAt', ['`runAt`', 'valid Date']],
  ['timeoutMs 0', { jobType: 'a', payload: {}, timeoutMs: 0 }, 'timeoutMs', ['`timeoutMs`', 'integer >= 1']],
  [
    'forceKillOnTimeout string',
    { jobType: 'a', payload: {}, forceKillOnTimeout: 'yes' },
    'forceKillOnTimeout',
    ['`forceKillOnTimeout`', 'boolean'],
  ],
  ['tags not an array', { jobType: 'a', payload: {}, tags: 'a,b' }, 'tags', ['`tags`', 'array']],
  ['empty tag', { jobType: 'a', payload: {}, tags: ['ok', ''] }, 'tags[1]', ['`tags[1]`', 'non-empty string']],
  ['tag with NUL', { jobType: 'a', payload: {}, tags: ['a\u0000b'] }, 'tags[0]', ['`tags[0]`', 'NUL']],
  [
    'empty idempotencyKey',
    { jobType: 'a', payload: {}, idempotencyKey: '' },
    'idempotencyKey',
    ['`idempotencyKey`', 'non-empty string'],
  ],
  [
    'negative retryDelay',
    { jobType: 'a', payload: {}, retryDelay: -1 },
    'retryDelay',
    ['`retryDelay`', '>= 0', '-1 (number)'],
  ],
  [
    'retryBackoff string',
    { jobType: 'a', payload: {}, retryBackoff: 'true' },
    'retryBackoff',
    ['`retryBackoff`', 'boolean'],
  ],
  [
    'retryDelayMax Infinity',
    { jobType: 'a', payload: {}, retryDelayMax: Infinity },
    'retryDelayMax',
    ['`retryDelayMax`', 'finite'],
  ],
  [
    'empty deadLetterJobType',
    { jobType: 'a', payload: {}, deadLetterJobType: '' },
    'deadLetterJobType',
    ['`deadLetterJobType`', 'non-empty string'],
  ],
  [
    'group without id',
    { jobType: 'a', payload: {}, group: { tier: 'x' } },
    'group.id',
    ['`group.id`', 'non-empty string'],
  ],
  ['group as string', { jobType: 'a', payload: {}, group: 'g1' }, 'group', ['`group`', 'object']],
  ['dependsOn as array', { jobType: 'a', payload: {}, dependsOn: [1] }, 'dependsOn', ['`dependsOn`', 'object']],
  [
    'dependsOn.tags with empty tag',
    { jobType: 'a', payload: {}, dependsOn: { tags: [''] } },
    'dependsOn.tags[0]',
    ['`dependsOn.tags[0]`'],
  ],
  ['options not an object', 'email', 'job', ['`job`', 'object']],
  // Payloads that do not survive a JSON round trip.
  [
    'payload with a function',
    { jobType: 'a', payload: { to: 'x', send: () => 1 } },
    'payload.send',
    ['`payload.send`', 'functions'],
  ],
  ['payload that is a function', { jobType: 'a', payload: () => 1 }, 'payload', ['`payload`', 'functions']],
  [
    'payload with a BigInt',
    { jobType: 'a', payload: { n: 10n } },
    'payload.n',
    ['`payload.n`', 'bigints', '10 (bigint)'],
  ],
  [
    'payload with a circular reference',
    { jobType: 'a', payload: circular },
    'payload.self',
    ['`payload.self`', 'circular'],
  ],
  ['payload with NaN', { jobType: 'a', payload: { x: Number.NaN } }, 'payload.x', ['`payload.x`', 'finite', 'NaN']],
  [
    'payload with Infinity in an array',
    { jobType: 'a', payload: { list: [1, -Infinity] } },
    'payload.list[1]',
    ['`payload.list[1]`', 'finite'],
  ],
  ['payload with a Map', { jobType: 'a', payload: { m: new Map([['k', 1]]) } }, 'payload.m', ['`payload.m`', 'Map']],
  ['payload that is a Set', { jobType: 'a', payload: new Set([1]) }, 'payload', ['`payload`', 'plain objects']],
  ['payload with a NUL character', { jobType: 'a', payload: { s: 'a\u0000b' } }, 'payload.s', ['`payload.s`', 'NUL']],
  ['payload with a NUL in a key', { jobType: 'a', payload: { 'k\u0000': 1 } }, 'payload', ['`payload`', 'NUL']],
  ['payload with a symbol', { jobType: 'a', payload: { s: Symbol('x') } }, 'payload.s', ['`payload.s`', 'symbols']],
];

forEachBackend('validation of addJob / addJobs (§7)', (ctx) => {
  it.each(BAD_JOBS)('addJob rejects %s and writes nothing', async (_label, options, field, message) => {
    const error = await expectFailure(ctx.queue.addJob(options as JobOptions), ValidationError, { field, message });
    expect(error).toBeInstanceOf(QueueError);
    expect((error as QueueError).code).toBe('VALIDATION_FAILED');
    expect(await ctx.queue.getAllJobs()).toEqual([]);
  });

  it.each(BAD_JOBS)(
    'addJobs rejects %s in the middle of a batch and writes none of it',
    async (_label, options, field, message) => {
      const batchField = field === 'job' ? 'jobs[1]' : `jobs[1].${field}`;
      await expectFailure(
        ctx.queue.addJobs([
          { jobType: 'ok', payload: { n: 0 }, idempotencyKey: 'first' },
          options as JobOptions,
          { jobType: 'ok', payload: { n: 2 } },
        ]),
        ValidationError,
        { field: batchField, message: [...message.slice(1), `\`${batchField}`] },
      );
      expect(await ctx.queue.getAllJobs()).toEqual([]);
    },
  );

  it('addJobs rejects a list that is not an array', async () => {
    await expectFailure(ctx.queue.addJobs('jobs' as never), ValidationError, {
      field: 'jobs',
      message: ['`jobs`', 'array'],
    });
    expect(await ctx.queue.getAllJobs()).toEqual([]);
  });

  it('names the first bad field of a batch', async () => {
    await expectFailure(
      ctx.queue.addJobs([
        { jobType: 'ok', payload: {} },
        { jobType: 'ok', payload: {} },
        { jobType: 'ok', payload: {}, maxAttempts: -1 },
        { jobType: '', payload: {} },
      ]),
      ValidationError,
      { field: 'jobs[2].maxAttempts' },
    );
  });
});

forEachBackend('validation of queries (§7)', (ctx) => {
  const BAD_IDS: unknown[] = [0, -1, 1.5, Number.NaN, '1', null, undefined, 2 ** 60];

  it.each(BAD_IDS)('rejects job id %s in every operation taking one', async (bad) => {
    const id = await ctx.queue.addJob({ jobType: 'a', payload: {} });
    const before = await ctx.queue.getJob(id);
    const badId = bad as number;
    await expectFailure(ctx.queue.getJob(badId), ValidationError, {
      field: 'id',
      message: ['`id`', 'positive integer'],
    });
    for (const call of [
      () => ctx.queue.getJobEvents(badId),
      () => ctx.queue.cancelJob(badId),
      () => ctx.queue.retryJob(badId),
      () => ctx.queue.editJob(badId, { priority: 1 }),
    ]) {
      await expectFailure(call, ValidationError, { field: 'jobId', message: ['`jobId`', 'positive integer'] });
    }
    expect(await ctx.queue.getAllJobs()).toEqual([before]);
  });

  it('reports bad input by rejecting the returned promise, never by throwing synchronously', async () => {
    const calls: [string, () => Promise<unknown>][] = [
      ['getJob', () => ctx.queue.getJob(0)],
      ['getJobs', () => ctx.queue.getJobs({ priority: 0.5 })],
      ['getJobsByStatus', () => ctx.queue.getJobsByStatus('done' as JobStatus)],
      ['getAllJobs', () => ctx.queue.getAllJobs(-1)],
      ['getJobsByTags', () => ctx.queue.getJobsByTags([''])],
      ['getJobEvents', () => ctx.queue.getJobEvents(-1)],
      ['editAllPendingJobs', () => ctx.queue.editAllPendingJobs({ jobType: '' }, { priority: 1 })],
      ['cleanupOldJobs', () => ctx.queue.cleanupOldJobs(-1)],
      ['cleanupOldJobEvents', () => ctx.queue.cleanupOldJobEvents(-1)],
      ['addJob', () => ctx.queue.addJob({ jobType: '', payload: {} })],
    ];
    for (const [name, call] of calls) {
      let promise: Promise<unknown> | undefined;
      expect(() => (promise = call()), name).not.toThrow();
      await expect(promise, name).rejects.toBeInstanceOf(ValidationError);
    }
  });

  it('rejects an unknown status in getJobsByStatus', async () => {
    await expectFailure(ctx.queue.getJobsByStatus('done' as JobStatus), ValidationError, {
      field: 'status',
      message: ['`status`', "'pending'", "'waiting'", '"done" (string)'],
    });
  });

  it('rejects an unknown tag mode', async () => {
    await expectFailure(ctx.queue.getJobsByTags(['a'], 'some' as TagQueryMode), ValidationError, {
      field: 'mode',
      message: ['`mode`', "'exact'", "'none'", '"some" (string)'],
    });
    await expectFailure(ctx.queue.getJobs({ tags: { values: ['a'], mode: 'most' as TagQueryMode } }), ValidationError, {
      field: 'filter.tags.mode',
      message: ['`filter.tags.mode`', "'any'"],
    });
  });

  it('rejects bad tag lists', async () => {
    await expectFailure(ctx.queue.getJobsByTags('a' as never), ValidationError, { field: 'tags' });
    await expectFailure(ctx.queue.getJobsByTags(['a', '']), ValidationError, { field: 'tags[1]' });
  });

  it.each([
    ['negative limit', [-1, undefined], 'limit'],
    ['fractional limit', [1.5, undefined], 'limit'],
    ['string limit', ['10', undefined], 'limit'],
    ['negative offset', [10, -1], 'offset'],
    ['NaN offset', [10, Number.NaN], 'offset'],
  ] as const)('rejects a %s in every list operation', async (_label, [limit, offset], field) => {
    const l = limit as number | undefined;
    const o = offset;
    const rule = ['`' + field + '`', 'integer'];
    await expectFailure(ctx.queue.getAllJobs(l, o), ValidationError, { field, message: rule });
    await expectFailure(ctx.queue.getJobs(undefined, l, o), ValidationError, { field, message: rule });
    await expectFailure(ctx.queue.getJobsByStatus('pending', l, o), ValidationError, { field, message: rule });
    await expectFailure(ctx.queue.getJobsByTags(['a'], 'all', l, o), ValidationError, { field, message: rule });
  });

  it.each([
    ['unknown member', { status: 'pending' }, 'filter.status'],
    ['jobType not a string', { jobType: 3 }, 'filter.jobType'],
    ['priority not an integer', { priority: 'high' }, 'filter.priority'],
    ['runAt invalid Date', { runAt: new Date('x') }, 'filter.runAt'],
    ['runAt string', { runAt: '2030-01-01' }, 'filter.runAt'],
    ['unknown runAt operator', { runAt: { after: new Date() } }, 'filter.runAt.after'],
    ['runAt operator not a Date', { runAt: { gt: '2030-01-01' } }, 'filter.runAt.gt'],
    ['tags not an object', { tags: ['a'] }, 'filter.tags'],
    ['tags.values missing', { tags: { mode: 'any' } }, 'filter.tags.values'],
    ['filter not an object', 'email', 'filter'],
  ] as const)(
    'rejects a bad filter (%s) in getJobs, editAllPendingJobs and cancelAllUpcomingJobs',
    async (_label, filter, field) => {
      const id = await ctx.queue.addJob({ jobType: 'a', payload: {} });
      const before = await ctx.queue.getJob(id);
      const f = filter as unknown as JobFilter;
      const message = ['`' + field];
      await expectFailure(ctx.queue.getJobs(f), ValidationError, { field, message });
      await expectFailure(ctx.queue.editAllPendingJobs(f, { priority: 5 }), ValidationError, { field, message });
      await expectFailure(ctx.queue.cancelAllUpcomingJobs(f), ValidationError, { field, message });
      expect(await ctx.queue.getAllJobs()).toEqual([before]);
      expect((await ctx.queue.getJobEvents(id)).map((e) => e.eventType)).toEqual(['added']);
    },
  );
});

forEachBackend('validation of edits and maintenance (§7)', (ctx) => {
  it.each([
    ['maxAttempts 0', { maxAttempts: 0 }, 'updates.maxAttempts'],
    ['priority NaN', { priority: Number.NaN }, 'updates.priority'],
    ['runAt invalid', { runAt: new Date('x') }, 'updates.runAt'],
    ['timeoutMs negative', { timeoutMs: -5 }, 'updates.timeoutMs'],
    ['tags with an empty tag', { tags: [''] }, 'updates.tags[0]'],
    ['payload with BigInt', { payload: { n: 1n } }, 'updates.payload.n'],
    ['retryDelay negative', { retryDelay: -1 }, 'updates.retryDelay'],
    ['retryBackoff string', { retryBackoff: 'no' }, 'updates.retryBackoff'],
    ['deadLetterJobType empty', { deadLetterJobType: '' }, 'updates.deadLetterJobType'],
    ['jobType', { jobType: 'other' }, 'updates.jobType'],
    ['unknown field', { status: 'completed' }, 'updates.status'],
  ] as const)('editJob and editAllPendingJobs reject %s and change nothing', async (_label, updates, field) => {
    const id = await ctx.queue.addJob({ jobType: 'a', payload: { v: 1 } });
    const before = await ctx.queue.getJob(id);
    const u = updates as unknown as EditJobOptions;
    // A valid field next to the bad one must not be applied either.
    await expectFailure(ctx.queue.editJob(id, { priority: 42, ...u }), ValidationError, {
      field,
      message: ['`' + field],
    });
    await expectFailure(ctx.queue.editAllPendingJobs(undefined, { priority: 42, ...u }), ValidationError, { field });
    expect(await ctx.queue.getJob(id)).toEqual(before);
    expect((await ctx.queue.getJobEvents(id)).map((e) => e.eventType)).toEqual(['added']);
  });

  it('rejects updates that are not an object', async () => {
    const id = await ctx.queue.addJob({ jobType: 'a', payload: {} });
    await expectFailure(ctx.queue.editJob(id, 'x' as never), ValidationError, { field: 'updates' });
  });

  it.each([-1, Number.NaN, Infinity, '30'])(
    'cleanupOldJobs and cleanupOldJobEvents reject daysToKeep %s',
    async (bad) => {
      const id = await ctx.queue.addJob({ jobType: 'a', payload: {} });
      await ctx.queue.cancelJob(id);
      await expectFailure(ctx.queue.cleanupOldJobs(bad as number), ValidationError, { field: 'daysToKeep' });
      await expectFailure(ctx.queue.cleanupOldJobEvents(bad as number), ValidationError, { field: 'daysToKeep' });
      expect(ids(await ctx.queue.getAllJobs())).toEqual([id]);
      expect(await ctx.queue.getJobEvents(id)).toHaveLength(2);
    },
  );

  it('cleanupOldJobs rejects a batch size below 1', async () => {
    await expectFailure(ctx.queue.cleanupOldJobs(30, 0), ValidationError, { field: 'batchSize' });
  });
});
