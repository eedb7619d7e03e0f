/**
 * The trigger that puts parked jobs back in the due lane wakes idle processors (migration 015)
 * on the queue's own channel, which it computes as the client does (notifyChannel): the schema
 * in the name, or a hash of a schema name too long for it. Heard on a raw LISTEN.
 */
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { notifyChannel } from '../../src/backends/postgres/queries/names.js';
import { initJobQueue, migrate } from '../../src/index.js';
import { backendOf } from '../../src/queue.js';
import { PG_URL, uniqueName } from '../helpers/backends.js';
import { waitFor } from '../helpers/wait.js';

describe('wake-up of jobs put back by the unpark trigger (postgres)', () => {
  const schemas: string[] = [];
  const admin = new pg.Pool({ connectionString: PG_URL, max: 2 });
  afterAll(async () => {
    for (const s of schemas) await admin.query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`);
    await admin.end();
  });

  it.each([
    ['a short schema name', uniqueName('qpg_wake')],
    ['a schema name too long for the channel', `${uniqueName('qpg_wake')}_${'x'.repeat(40)}`],
  ])('notifies the channel of %s when a freed group slot puts its parked job back', async (_, schema) => {
    schemas.push(schema);
    await migrate({ databaseUrl: PG_URL, schema });
    const channel = notifyChannel(schema);
    expect(channel.startsWith(`queuedev_${schema}`)).toBe(`queuedev_${schema}`.length <= 63);
    const queue = initJobQueue({ backend: 'postgres', pool: admin, schema });
    const listener = new pg.Client({ connectionString: PG_URL });
    await listener.connect();
    const heard: string[] = [];
    listener.on('notification', (n) => heard.push(n.channel));
    try {
      const group = { id: 'g' };
      const [first, second] = await queue.addJobs([
        { jobType: 'a', payload: {}, group },
        { jobType: 'a', payload: {}, group },
      ]);
      const store = backendOf(queue);
      const claim = () => store.claimJobs({ workerId: 'w', batchSize: 10, now: new Date(), groupConcurrency: 1 });
      expect((await claim()).map((j) => j.id)).toEqual([first]);
      expect(await claim()).toEqual([]); // parks `second`
      await listener.query(`LISTEN "${channel}"`);
      expect(await store.completeJobs([{ jobId: first!, workerId: 'w' }], new Date())).toEqual([first]);
      await waitFor(() => heard.length > 0, { what: 'a notification on the queue channel', timeoutMs: 5_000 });
      expect(heard).toEqual([channel]);
      expect((await claim()).map((j) => j.id)).toEqual([second]);
    } finally {
      await listener.end();
      await queue.close();
    }
  });
});
