/**
 * Blocked due jobs (SPEC §2.10 groupConcurrency, §4.8 dependsOn.tags; DETAILS "Group limits and
 * concurrency"): a due job held back by a full group or a tag barrier runs as soon as nothing
 * holds it back any more, whatever ended the hold: the running job of the group finishing,
 * waiting or being reclaimed, the job let through in its place leaving without running
 * (cancelled, moved later, held back itself), a barrier holder leaving. Claims are explicit, at a
 * fixed time, so each step shows which jobs a processor can take.
 */
import { expect, it } from 'vitest';
import type { JobQueue } from '../../src/index.js';
import { backendOf } from '../../src/queue.js';
import { forEachBackend } from '../helpers/backends.js';
import { seededRandom } from '../helpers/random.js';
import { failOne } from '../helpers/fail.js';

const W = 'w';
const NOW = new Date('2030-01-01T00:00:00.000Z');
const EARLIER = new Date(NOW.getTime() - 60_000);
const LATER = new Date(NOW.getTime() + 3_600_000);

forEachBackend('blocked due jobs: the turn of a group or barrier passes on (§2.10, §4.8)', (ctx) => {
  const complete = (q: JobQueue, ...ids: number[]) =>
    backendOf(q).completeJobs(
      ids.map((jobId) => ({ jobId, workerId: W })),
      NOW,
    );

  /** Claims at `now` under groupConcurrency 1, optionally limited to `jobTypes`: the claimed ids. */
  function claimer(q: JobQueue) {
    return async (options: { jobTypes?: string[]; now?: Date; batchSize?: number } = {}) => {
      const { jobTypes, now = NOW, batchSize = 10 } = options;
      const jobs = await backendOf(q).claimJobs({ workerId: W, batchSize, now, groupConcurrency: 1, jobTypes });
      return jobs.map((j) => j.id);
    };
  }

  /**
   * Group g (limit 1): `a` running, `b` then `c` (of `types`) due and held back by the group;
   * `b` may depend on tags no job carries yet.
   */
  async function fullGroup(q: JobQueue, types = ['work', 'work', 'work'], bDependsOn?: { tags: string[] }) {
    const group = { id: 'g' };
    const [a, b, c] = (await q.addJobs([
      { jobType: types[0]!, payload: {}, group, priority: 9, runAt: EARLIER },
      { jobType: types[1]!, payload: {}, group, priority: 5, runAt: EARLIER, dependsOn: bDependsOn },
      { jobType: types[2]!, payload: {}, group, priority: 1, runAt: EARLIER },
    ])) as [number, number, number];
    const claim = claimer(q);
    expect(await claim({ batchSize: 1 })).toEqual([a]);
    expect(await claim()).toEqual([]);
    return { a, b, c, claim };
  }

  it('runs the next job of a group when the job the freed slot went to is cancelled', async () => {
    const { a, b, c, claim } = await fullGroup(ctx.queue);
    await complete(ctx.queue, a);
    await ctx.queue.cancelJob(b);
    expect(await claim()).toEqual([c]);
  });

  it('runs the next job of a group when the job the freed slot went to is moved later', async () => {
    const { a, b, c, claim } = await fullGroup(ctx.queue);
    await complete(ctx.queue, a);
    await ctx.queue.editJob(b, { runAt: LATER });
    expect(await claim()).toEqual([c]);
    await complete(ctx.queue, c);
    expect(await claim({ now: LATER })).toEqual([b]);
  });

  it('runs the next job of a group when the job the freed slot went to is held back by a tag barrier', async () => {
    const { a, b, c, claim } = await fullGroup(ctx.queue, ['work', 'work', 'work'], { tags: ['t'] });
    const holder = await ctx.queue.addJob({ jobType: 'holder', payload: {}, tags: ['t'], runAt: LATER });
    await complete(ctx.queue, a);
    expect(await claim()).toEqual([c]);
    await complete(ctx.queue, c);
    expect(await claim()).toEqual([]);
    await ctx.queue.editJob(holder, { tags: [] });
    expect(await claim()).toEqual([b]);
  });

  it('gives a claim limited to one job type its job of a group whose slot freed', async () => {
    const { a, b, c, claim } = await fullGroup(ctx.queue, ['a', 'b', 'c']);
    await complete(ctx.queue, a);
    expect(await claim({ jobTypes: ['c'] })).toEqual([c]);
    expect(await claim()).toEqual([]);
    await complete(ctx.queue, c);
    expect(await claim()).toEqual([b]);
  });

  it('gives a freed slot to the next job, not to one cancelled while held back', async () => {
    const { a, b, c, claim } = await fullGroup(ctx.queue);
    await ctx.queue.cancelJob(b);
    await complete(ctx.queue, a);
    expect(await claim()).toEqual([c]);
  });

  it('gives a freed slot to the next job, not to one moved later while held back', async () => {
    const { a, b, c, claim } = await fullGroup(ctx.queue);
    await ctx.queue.editJob(b, { runAt: LATER });
    await complete(ctx.queue, a);
    expect(await claim()).toEqual([c]);
    await complete(ctx.queue, c);
    expect(await claim({ now: LATER })).toEqual([b]);
  });

  it('runs the next job of a group when the running one waits, fails for a retry, or is reclaimed', async () => {
    const { a, b, c, claim } = await fullGroup(ctx.queue);
    const backend = backendOf(ctx.queue);
    await backend.enterWait({ jobId: a, workerId: W, waitUntil: LATER, tokenId: null, now: NOW });
    expect(await claim()).toEqual([b]);
    await failOne(backend, { jobId: b, workerId: W, message: 'no', reason: 'handler_error', retryAt: LATER, now: NOW });
    expect(await claim()).toEqual([c]);
    const stale = new Date(LATER.getTime() - 1);
    expect((await backend.reclaimStuckJobs({ maxProcessingMs: 1_000, now: stale })).requeuedIds).toEqual([c]);
    expect(await claim({ now: stale })).toEqual([c]);
  });

  /** Holder (tag `tag`) running; `own` (carries `tag`, waits for it) and `other` (waits for it) due. */
  async function barrier(q: JobQueue, tag: string) {
    const claim = claimer(q);
    const [holder, own, other] = (await q.addJobs([
      { jobType: 'holder', payload: {}, tags: [tag], priority: 9, runAt: EARLIER },
      { jobType: 'own', payload: {}, tags: [tag], dependsOn: { tags: [tag] }, priority: 5, runAt: EARLIER },
      { jobType: 'other', payload: {}, dependsOn: { tags: [tag] }, priority: 1, runAt: EARLIER },
    ])) as [number, number, number];
    expect(await claim({ batchSize: 1 })).toEqual([holder]);
    expect(await claim()).toEqual([]);
    await complete(q, holder);
    return { own, other, claim };
  }

  it('keeps jobs behind a barrier back while the barrier job let through holds it, and cancels them with it', async () => {
    const { own, other, claim } = await barrier(ctx.queue, 't');
    // `own` now holds the barrier of `other` itself, due or not.
    await ctx.queue.editJob(own, { runAt: LATER });
    expect(await claim()).toEqual([]);
    await ctx.queue.cancelJob(own);
    expect((await ctx.queue.getJob(other))?.status).toBe('cancelled');
    expect(await claim({ now: LATER })).toEqual([]);
  });

  it('runs the jobs behind a barrier once the barrier job let through drops the tags', async () => {
    const { own, other, claim } = await barrier(ctx.queue, 't');
    await ctx.queue.editJob(own, { tags: ['u'] });
    expect(await claim({ batchSize: 1 })).toEqual([own]);
    expect(await claim()).toEqual([other]);
  });

  /**
   * Random steps on two groups of three job types, some jobs holding or waiting for tag `t`:
   * adds, claims (limited to a type or not, groupConcurrency 1 or 2), completions, failures
   * for a retry, cancels and edits (run time, tags) of pending jobs. The last steps add nothing,
   * so no new job comes to free a group. Then claims of any type and completions, later, until
   * a claim finds nothing: no job may be left that could still run.
   */
  async function randomSteps(seed: number, ran: Map<string, number>): Promise<void> {
    const rnd = seededRandom(seed);
    const tally = (step: string) => ran.set(step, (ran.get(step) ?? 0) + 1);
    const q = ctx.queue;
    const backend = backendOf(q);
    const types = ['a', 'b', 'c'];
    const running: number[] = [];
    const pendingJob = async () => {
      const pending = await q.getJobsByStatus('pending');
      return pending.length ? pending[rnd(pending.length)]!.id : undefined;
    };
    for (let step = 0; step < 100; step++) {
      const op = step < 40 ? rnd(8) : 2 + rnd(6);
      if (op <= 1) {
        tally('add');
        const dependsOn = rnd(5) === 0 ? { tags: ['t'] } : undefined;
        await q.addJob({
          jobType: types[rnd(3)]!,
          payload: {},
          group: { id: `g${rnd(2)}` },
          priority: rnd(5),
          runAt: EARLIER,
          tags: !dependsOn && rnd(4) === 0 ? ['t'] : [],
          dependsOn,
        });
      } else if (op <= 3) {
        const jobTypes = rnd(2) ? [types[rnd(3)]!] : undefined;
        const groupConcurrency = 1 + rnd(2);
        const jobs = await backend.claimJobs({
          workerId: W,
          batchSize: 1 + rnd(3),
          now: NOW,
          groupConcurrency,
          jobTypes,
        });
        tally('claim');
        running.push(...jobs.map((j) => j.id));
      } else if (op === 4 && running.length > 0) {
        tally('complete');
        await complete(q, running.splice(rnd(running.length), 1)[0]!);
      } else if (op === 5) {
        const id = await pendingJob();
        if (id !== undefined) {
          tally('cancel');
          await q.cancelJob(id);
        }
      } else if (op === 6) {
        const id = await pendingJob();
        const edit = rnd(2) ? { runAt: rnd(2) ? LATER : EARLIER } : { tags: rnd(2) ? [] : ['u'] };
        if (id !== undefined) {
          tally('edit');
          await q.editJob(id, edit);
        }
      } else if (op === 7 && running.length > 0) {
        tally('fail');
        const jobId = running.splice(rnd(running.length), 1)[0]!;
        await failOne(backend, {
          jobId,
          workerId: W,
          message: 'no',
          reason: 'handler_error',
          retryAt: EARLIER,
          now: NOW,
        });
      }
    }
    await complete(q, ...running);
    const end = new Date(LATER.getTime() + 60_000);
    for (;;) {
      const jobs = await backend.claimJobs({ workerId: W, batchSize: 5, now: end, groupConcurrency: 1 });
      if (jobs.length === 0) break;
      await backend.completeJobs(
        jobs.map((j) => ({ jobId: j.id, workerId: W })),
        end,
      );
    }
    const left = [
      ...(await q.getJobsByStatus('pending')),
      ...(await q.getJobsByStatus('processing')),
      ...(await q.getJobsByStatus('waiting')),
      ...(await q.getJobsByStatus('failed')).filter((j) => j.nextAttemptAt !== null),
    ];
    expect(
      left.map((j) => j.id),
      `seed ${seed}`,
    ).toEqual([]);
  }

  it('leaves no job that could run after random adds, claims, completions, failures, cancels and edits', async () => {
    // Each seed ends with every job finished, so the next starts from an idle store. (Migration
    // 006 alone left jobs behind at two seeds of the generator used before seededRandom.)
    const ran = new Map<string, number>();
    for (let seed = 51; seed <= 100; seed++) await randomSteps(seed, ran);
    // Every kind of step ran often: a generator whose draws repeat in a short cycle would leave
    // some out.
    for (const step of ['add', 'claim', 'complete', 'cancel', 'edit', 'fail']) {
      expect(ran.get(step) ?? 0, step).toBeGreaterThanOrEqual(100);
    }
  }, 120_000);
});
