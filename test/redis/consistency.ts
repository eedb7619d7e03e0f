/**
 * The index consistency checker of the Redis tests: every index of keys.ts agrees with the job,
 * schedule and token metadata it is derived from.
 */
import type { Redis } from 'ioredis';
import { expect } from 'vitest';
import { pad, redisKeys } from '../../src/backends/redis/keys.js';
import type { StoredJob } from '../../src/backends/redis/record.js';
import type { StoredCronSchedule } from '../../src/backends/redis/cron.js';
import { JOB_STATUSES } from '../../src/types.js';

const sorted = (values: string[]) => [...values].sort();
const arr = <T>(v: T[] | Record<string, never> | null | undefined): T[] => (Array.isArray(v) ? v : []);

/** Fails the test when an index of the queue under `prefix` disagrees with the metadata. */
export async function expectConsistent(redis: Redis, prefix: string): Promise<void> {
  const k = redisKeys(prefix);
  const raw = await redis.hgetall(k.jobs);
  const jobs = Object.values(raw).map((t) => JSON.parse(t) as StoredJob);
  const ids = jobs.map((j) => String(j.id));

  expect(sorted(await redis.zrange(k.all, 0, '-1')), 'all').toEqual(sorted(ids));
  const runAt: Record<string, number> = {};
  const scores = await redis.zrange(k.runAt, 0, '-1', 'WITHSCORES');
  for (let i = 0; i < scores.length; i += 2) runAt[scores[i]!] = Number(scores[i + 1]);
  expect(runAt, 'run-at').toEqual(Object.fromEntries(jobs.map((j) => [String(j.id), j.runAt])));
  expect(sorted(await redis.hkeys(k.payloads)), 'payloads').toEqual(sorted(ids));
  for (const status of JOB_STATUSES) {
    const expected = jobs.filter((j) => j.status === status).map((j) => String(j.id));
    expect(sorted(await redis.zrange(k.status[status], 0, '-1')), `status:${status}`).toEqual(sorted(expected));
  }
  expect(sorted(await redis.zrange(k.types, 0, '-1')), 'types').toEqual(
    sorted(jobs.map((j) => `${j.jobType}\0${pad(j.id)}`)),
  );
  expect(sorted(await redis.zrange(k.tags, 0, '-1')), 'tags').toEqual(
    sorted(jobs.flatMap((j) => arr(j.tags).map((t) => `${t}\0${pad(j.id)}`))),
  );
  expect(sorted(await redis.zrange(k.tagDeps, 0, '-1')), 'tag-deps').toEqual(
    sorted(jobs.flatMap((j) => arr(j.dependsOnTags).map((t) => `${t}\0${pad(j.id)}`))),
  );
  const present = new Set(jobs.map((j) => j.id));
  expect(sorted(await redis.zrange(k.deps, 0, '-1')), 'deps').toEqual(
    sorted(
      jobs.flatMap((j) =>
        arr(j.dependsOnJobIds)
          .filter((d) => present.has(d))
          .map((d) => `${pad(d)}\0${pad(j.id)}`),
      ),
    ),
  );

  const placed = new Map<string, string[]>();
  for (const name of ['ready', 'blocked', 'scheduled', 'processing', 'finished'] as const) {
    for (const m of await redis.zrange(k[name], 0, '-1')) placed.set(m, [...(placed.get(m) ?? []), name]);
  }
  for (const m of await redis.zrange(k.parked, 0, '-1')) {
    if (m.startsWith('o\0')) continue; // a barrier left open, not a job
    const id = m.slice(-15);
    placed.set(id, [...(placed.get(id) ?? []), 'parked']);
  }
  await expectParkedHeldBack(redis, prefix, jobs);
  for (const j of jobs) {
    const where = placed.get(pad(j.id)) ?? [];
    const finished =
      j.status === 'completed' || j.status === 'cancelled' || (j.status === 'failed' && j.nextAttemptAt == null);
    if (j.status === 'processing') {
      expect(where, `job ${j.id}`).toEqual(['processing']);
      expect(Number(await redis.zscore(k.processing, pad(j.id)))).toBe(j.lockedAt);
    } else if (finished) {
      expect(where, `job ${j.id}`).toEqual(['finished']);
      expect(Number(await redis.zscore(k.finished, pad(j.id)))).toBe(j.updatedAt);
    } else if (j.status === 'waiting' && j.waitUntil == null) {
      expect(where, `job ${j.id}`).toEqual([]);
    } else {
      expect(
        where.length === 1 && ['ready', 'blocked', 'scheduled', 'parked'].includes(where[0]!),
        `job ${j.id} in ${where.join(',')}`,
      ).toBe(true);
      if (where[0] === 'blocked') {
        // Held back only while a prerequisite exists and is not completed: else it would never be claimed.
        const byId = new Map(jobs.map((other) => [other.id, other]));
        const unmet = arr(j.dependsOnJobIds).filter((d) => byId.has(d) && byId.get(d)!.status !== 'completed');
        expect(j.status, `blocked job ${j.id}`).toBe('pending');
        expect(unmet.length, `blocked job ${j.id} has an unmet prerequisite`).toBeGreaterThan(0);
      }
      if (where[0] === 'scheduled') {
        const due = j.status === 'pending' ? j.runAt : j.status === 'failed' ? j.nextAttemptAt : j.waitUntil;
        expect(Number(await redis.zscore(k.scheduled, pad(j.id))), `job ${j.id} scheduled score`).toBe(due);
      }
    }
    placed.delete(pad(j.id));
  }
  expect([...placed.keys()], 'placement entries without a job').toEqual([]);

  // ready-by-type mirrors ready, with the type and current priority in the member.
  const readyIds = new Set((await redis.zrange(k.ready, 0, '-1')).map(Number));
  const typed = (j: StoredJob) => `${j.jobType}\0${String(2147483647 - j.priority).padStart(10, '0')}\0${pad(j.id)}`;
  expect(sorted(await redis.zrange(k.readyByType, 0, '-1')), 'ready-by-type').toEqual(
    sorted(jobs.filter((j) => readyIds.has(j.id)).map(typed)),
  );
  // Claim hints are written by earlier layouts only: any left belong to a stored job and match it.
  const hints: Record<string, string> = {};
  const stored = await redis.hgetall(k.claimHints);
  for (const j of jobs) {
    const hint = `${j.jobType}\0${j.groupId ?? ''}`;
    if (stored[String(j.id)] === hint) hints[String(j.id)] = hint;
  }
  expect(stored, 'claim-hints').toEqual(hints);

  const groups: Record<string, string> = {};
  for (const j of jobs) {
    if (j.status === 'processing' && j.groupId) groups[j.groupId] = String(Number(groups[j.groupId] ?? 0) + 1);
  }
  expect(await redis.hgetall(k.groups), 'groups').toEqual(groups);

  const idem: Record<string, string> = {};
  for (const j of jobs) if (j.idempotencyKey) idem[j.idempotencyKey] = String(j.id);
  expect(await redis.hgetall(k.idem), 'idem').toEqual(idem);

  const events = await redis.hgetall(k.events);
  const eventIds = Object.keys(events);
  expect(sorted(await redis.zrange(k.eventTimes, 0, '-1')), 'event-times').toEqual(sorted(eventIds));
  expect(sorted(await redis.zrange(k.jobEvents, 0, '-1')), 'job-events').toEqual(
    sorted(eventIds.map((id) => `${pad((JSON.parse(events[id]!) as { jobId: number }).jobId)}\0${pad(Number(id))}`)),
  );

  await expectWaitsConsistent(redis, prefix, jobs);
  await expectCronConsistent(redis, prefix);
}

const ACTIVE = ['pending', 'processing', 'waiting'];
const hex = (tag: string) => Buffer.from(tag, 'utf8').toString('hex');
const bestFirst = (j: StoredJob) => `${String(2147483647 - j.priority).padStart(10, '0')}\0${pad(j.id)}`;

/**
 * Every `parked` entry is the member its job's fields give, and its job is still held back by
 * something whose end releases it: a job of its group processing or ready (a group's parked
 * jobs come back as those leave), or another active job carrying its dependsOn.tags, or its
 * barrier ended and is left open (`o\0<barrier>`: claims put back the rest).
 */
async function expectParkedHeldBack(redis: Redis, prefix: string, jobs: StoredJob[]): Promise<void> {
  const k = redisKeys(prefix);
  const byId = new Map(jobs.map((j) => [pad(j.id), j]));
  const ready = new Set(await redis.zrange(k.ready, 0, '-1'));
  const inLane = (group: string) =>
    jobs.some((o) => o.groupId === group && (o.status === 'processing' || ready.has(pad(o.id))));
  const members = await redis.zrange(k.parked, 0, '-1');
  const open = new Set(members.filter((m) => m.startsWith('o\0')).map((m) => m.slice(2)));
  for (const m of members.filter((member) => !member.startsWith('o\0'))) {
    const j = byId.get(m.slice(-15));
    expect(j, `parked entry ${JSON.stringify(m)} has a job`).toBeDefined();
    const due = j!.status === 'pending' ? j!.runAt : j!.status === 'failed' ? j!.nextAttemptAt : j!.waitUntil;
    expect(due, `parked job ${j!.id} is claimable`).not.toBeNull();
    if (m.startsWith('g\0')) {
      expect(m, `parked job ${j!.id}`).toBe(`g\0${j!.groupId}\0${j!.jobType}\0${bestFirst(j!)}`);
      expect(inLane(j!.groupId!), `group ${j!.groupId} of parked job ${j!.id} has a job processing or ready`).toBe(
        true,
      );
    } else {
      const needed = arr(j!.dependsOnTags);
      const barrier = needed.map(hex).sort().join('\x01');
      expect(m, `parked job ${j!.id}`).toBe(`b\0${barrier}\0${bestFirst(j!)}`);
      const holder = jobs.find(
        (o) => o.id !== j!.id && ACTIVE.includes(o.status) && needed.every((t) => arr(o.tags).includes(t)),
      );
      expect(holder !== undefined || open.has(barrier), `barrier of parked job ${j!.id} is held or open`).toBe(true);
    }
  }
}

interface StoredTokenShape {
  id: string;
  status: 'waiting' | 'completed' | 'timed_out';
  timeoutAt: number | null;
}

/** Step data, token waiters, token timeouts and outputs. */
async function expectWaitsConsistent(redis: Redis, prefix: string, jobs: StoredJob[]): Promise<void> {
  const k = redisKeys(prefix);
  const byId = new Map(jobs.map((j) => [j.id, j]));

  // Every step field is listed in step-names, and belongs to a job that did not complete
  // (completion clears step data; cleanup removes it with the job).
  const fields = await redis.hkeys(k.steps);
  expect(sorted(await redis.zrange(k.stepNames, 0, '-1')), 'step-names').toEqual(sorted(fields));
  for (const f of fields) {
    const owner = byId.get(Number(f.slice(0, 15)));
    expect(f.charAt(15), `step field ${JSON.stringify(f)}`).toBe('\0');
    expect(owner?.status, `owner of step field ${JSON.stringify(f)}`).toBeDefined();
    expect(owner?.status).not.toBe('completed');
  }

  const tokens = Object.values(await redis.hgetall(k.tokens)).map((t) => JSON.parse(t) as StoredTokenShape);
  const tokenById = new Map(tokens.map((t) => [t.id, t]));
  const waiting = jobs.filter((j) => j.status === 'waiting' && j.waitTokenId != null);
  expect(sorted(await redis.zrange(k.tokenWaiters, 0, '-1')), 'token-waiters').toEqual(
    sorted(waiting.map((j) => `${j.waitTokenId}\0${pad(j.id)}`)),
  );
  for (const j of waiting)
    expect(tokenById.get(j.waitTokenId!)?.status, `token of waiting job ${j.id}`).toBe('waiting');

  const timeouts = await redis.zrange(k.tokenTimeouts, 0, '-1', 'WITHSCORES');
  const timeoutPairs: [string, number][] = [];
  for (let i = 0; i < timeouts.length; i += 2) timeoutPairs.push([timeouts[i]!, Number(timeouts[i + 1])]);
  expect(sorted(timeoutPairs.map(([id, at]) => `${id}@${at}`)), 'token-timeouts').toEqual(
    sorted(tokens.filter((t) => t.status === 'waiting' && t.timeoutAt != null).map((t) => `${t.id}@${t.timeoutAt}`)),
  );
  expect(sorted(await redis.hkeys(k.tokenOutputs)), 'token-outputs').toEqual(
    sorted(tokens.filter((t) => t.status === 'completed').map((t) => t.id)),
  );
}

/** Cron payloads, names and the due set (active schedules only, scored by nextRunAt). */
async function expectCronConsistent(redis: Redis, prefix: string): Promise<void> {
  const k = redisKeys(prefix);
  const schedules = Object.values(await redis.hgetall(k.cron)).map((t) => JSON.parse(t) as StoredCronSchedule);
  expect(sorted(await redis.hkeys(k.cronPayloads)), 'cron-payloads').toEqual(
    sorted(schedules.map((s) => String(s.id))),
  );
  const names: Record<string, string> = {};
  for (const s of schedules) names[s.scheduleName] = String(s.id);
  expect(await redis.hgetall(k.cronNames), 'cron-names').toEqual(names);
  const due = await redis.zrange(k.cronDue, 0, '-1', 'WITHSCORES');
  const pairs: string[] = [];
  for (let i = 0; i < due.length; i += 2) pairs.push(`${due[i]}@${due[i + 1]}`);
  expect(sorted(pairs), 'cron-due').toEqual(
    sorted(schedules.filter((s) => s.status === 'active').map((s) => `${pad(s.id)}@${s.nextRunAt}`)),
  );
}
