/**
 * Wake-ups (Backend.subscribeJobAvailable): LISTEN on one dedicated connection per queue,
 * NOTIFY in the statements that make jobs available, delivered only on commit.
 */
import { describe, expect, it } from 'vitest';
import { backendOf } from '../../src/queue.js';
import { usePostgres } from './support.js';
import { waitFor } from '../helpers/wait.js';

describe('subscribeJobAvailable (postgres)', () => {
  const ctx = usePostgres({ schemas: 1 });

  /** Backends of the wake-up connections of `schema`, from pg_stat_activity. */
  async function wakeConnections(schema = ctx.schema): Promise<number[]> {
    const { rows } = await ctx.sql.query(
      `SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND state IS NOT NULL`,
      [`queuedev-wake:${schema}`.slice(0, 63)],
    );
    return rows.map((r) => r.pid);
  }

  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('wakes subscribers when another queue adds or retries a job; one connection per queue; unsubscribe closes it', async () => {
    const listening = ctx.queue();
    const adding = ctx.queue();
    let first = 0;
    let second = 0;
    const unsubscribeFirst = await backendOf(listening).subscribeJobAvailable(() => first++);
    const unsubscribeSecond = await backendOf(listening).subscribeJobAvailable(() => second++);
    expect(await wakeConnections()).toHaveLength(1);
    // Each is called once its LISTEN is active, the second on the connection the first opened.
    expect([first, second]).toEqual([1, 1]);

    await adding.addJob({ jobType: 'x', payload: {} });
    await waitFor(() => first === 2 && second === 2, { what: 'the wake-up of both subscribers' });

    const id = await adding.addJob({ jobType: 'y', payload: {} });
    await waitFor(() => first === 3, { what: 'the second wake-up' });
    await adding.cancelJob(id);
    await adding.retryJob(id);
    await waitFor(() => first === 4, { what: 'the wake-up after a retry' });

    await unsubscribeFirst();
    expect(await wakeConnections()).toHaveLength(1);
    await unsubscribeSecond();
    await waitFor(async () => (await wakeConnections()).length === 0, { what: 'the connection to close' });
    await adding.addJob({ jobType: 'x', payload: {} });
    await pause(200);
    expect([first, second]).toEqual([4, 4]);
  });

  it('does not wake on an add rolled back in the caller’s transaction, nor on another schema', async () => {
    const listening = ctx.queue();
    const other = ctx.queue({ schema: ctx.extraSchemas[0]! });
    let calls = 0;
    await backendOf(listening).subscribeJobAvailable(() => calls++);
    expect(calls).toBe(1); // once subscribed

    const client = await ctx.sql.connect();
    try {
      await client.query('BEGIN');
      await listening.addJob({ jobType: 'x', payload: {} }, { db: client });
      await client.query('ROLLBACK');
    } finally {
      client.release();
    }
    await other.addJob({ jobType: 'x', payload: {} });
    await pause(300);
    expect(calls).toBe(1);

    // Still listening: a committed add in its own schema wakes it.
    await listening.addJob({ jobType: 'x', payload: {} });
    await waitFor(() => calls === 2, { what: 'the wake-up' });
  });

  it('reconnects after its connection is killed, wakes subscribers once, and keeps listening', async () => {
    const q = ctx.queue();
    let calls = 0;
    await backendOf(q).subscribeJobAvailable(() => calls++);
    expect(calls).toBe(1); // once subscribed
    const [pid] = await wakeConnections();
    expect(pid).toBeDefined();

    await ctx.sql.query('SELECT pg_terminate_backend($1)', [pid]);
    await waitFor(
      async () => {
        const pids = await wakeConnections();
        return pids.length === 1 && pids[0] !== pid;
      },
      { what: 'the reconnection' },
    );
    // Notifications sent while disconnected are lost, so the reconnection itself wakes.
    await waitFor(() => calls === 2, { what: 'the wake-up after reconnecting' });

    await q.addJob({ jobType: 'x', payload: {} });
    await waitFor(() => calls === 3, { what: 'a wake-up after the reconnection' });
  });

  it('close() ends the wake-up connection', async () => {
    const q = ctx.queue();
    await backendOf(q).subscribeJobAvailable(() => undefined);
    expect(await wakeConnections()).toHaveLength(1);
    await q.close();
    await waitFor(async () => (await wakeConnections()).length === 0, { what: 'the connection to close' });
  });
});
