/**
 * The Redis backend on a real Redis Cluster (three masters, test/helpers/redis-cluster-setup.ts),
 * beyond the conformance suite that runs there as the redis-cluster target: where a queue's
 * keys live (one slot per queue: the `{q}` slot, or the slot of a hash tag in the prefix, so
 * queues with tagged prefixes spread over the masters), and the Cluster class of ioredis 5 as
 * well as 6, including the wake-up connection each duplicates.
 */
import { Cluster } from 'ioredis';
import { Cluster as Cluster5 } from 'ioredis5';
import { describe, expect, it } from 'vitest';
import { initJobQueue } from '../../src/queue.js';
import { useQueues, useRedisPrefixes } from '../helpers/backends.js';
import { parseNodes } from '../helpers/redis-cluster.js';
import { waitFor } from '../helpers/wait.js';

const store = useRedisPrefixes({ prefix: 'qcluster', cluster: true });
const track = useQueues();
const cluster = () => store.redis as unknown as Cluster;

async function slotOf(key: string): Promise<number> {
  return cluster().cluster('KEYSLOT', key);
}

/** The master serving `slot`, as `host:port`, from the client's slot table. */
function masterOfSlot(slot: number): string {
  return cluster().slots[slot]![0]!;
}

/** Every key under `prefix`, with the master it lives on (SCAN on each master). */
async function keysByMaster(prefix: string): Promise<Map<string, string[]>> {
  const found = new Map<string, string[]>();
  for (const node of cluster().nodes('master')) {
    const keys: string[] = [];
    let cursor = '0';
    do {
      const [next, page] = await node.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      cursor = next;
      keys.push(...page);
    } while (cursor !== '0');
    if (keys.length > 0) found.set(`${node.options.host}:${node.options.port}`, keys);
  }
  return found;
}

/** A queue under `prefix` on the file's Cluster client, with some jobs done, pending and scheduled. */
async function busyQueue(prefix: string) {
  store.alsoDelete(prefix);
  const queue = track(initJobQueue({ backend: 'redis', client: store.redis, keyPrefix: prefix }));
  await queue.addJobs(Array.from({ length: 10 }, (_, n) => ({ jobType: 'work', payload: { n }, tags: ['t'] })));
  await queue.addJob({ jobType: 'later', payload: {}, runAt: new Date(Date.now() + 3_600_000) });
  await queue.addCronJob({ scheduleName: 'nightly', cronExpression: '0 3 * * *', jobType: 'work', payload: {} });
  expect(await queue.createProcessor({ work: async () => 'done' }, { batchSize: 5 }).start()).toBe(5);
  return queue;
}

it('keeps every key of a queue in one slot: the slot of {q} by default, of its own tag with a tagged prefix', async () => {
  const tag = store.prefix.slice(0, -1);
  const plain = store.prefix;
  const tagged = `{${tag}}:`;
  await busyQueue(plain);
  await busyQueue(tagged);

  for (const [prefix, expected] of [
    [plain, await slotOf('q')],
    [tagged, await slotOf(tag)],
  ] as const) {
    const keys = [...(await keysByMaster(prefix)).values()].flat();
    expect(keys.length, prefix).toBeGreaterThan(10);
    const slots = new Set(await Promise.all(keys.map(slotOf)));
    expect([...slots], prefix).toEqual([expected]);
  }
});

it('spreads queues whose prefixes carry different hash tags over different masters', async () => {
  // Two tags that this cluster's slot table puts on two different masters.
  const base = store.prefix.slice(0, -1);
  const candidates = await Promise.all(
    Array.from({ length: 24 }, async (_, i) => {
      const tag = `${base}-${i}`;
      return { tag, master: masterOfSlot(await slotOf(tag)) };
    }),
  );
  const first = candidates[0]!;
  const second = candidates.find((c) => c.master !== first.master);
  expect(second, 'a tag on another master').toBeDefined();

  const queues = [];
  for (const { tag, master } of [first, second!]) {
    const prefix = `{${tag}}:`;
    queues.push(await busyQueue(prefix));
    // All of the queue's keys are on the master its tag maps to, and only there.
    expect([...(await keysByMaster(prefix)).keys()]).toEqual([master]);
  }
  for (const queue of queues) {
    expect(await queue.getJobsByStatus('completed')).toHaveLength(5);
    expect(await queue.getJobsByStatus('pending')).toHaveLength(6);
  }
});

describe.each([
  ['ioredis 6', (nodes: { host: string; port: number }[]) => new Cluster(nodes)],
  ['ioredis 5', (nodes: { host: string; port: number }[]) => new Cluster5(nodes) as unknown as Cluster],
])('an %s Cluster client', (_label, open) => {
  it('wakes an idle background processor through a Cluster connection of its own, named; reads a token in a MULTI', async () => {
    const client = open(parseNodes(store.clusterNodes, 'clusterNodes'));
    try {
      const queue = track(initJobQueue({ backend: 'redis', client, keyPrefix: store.prefix }));
      const done: number[] = [];
      // A poll interval far beyond the test: only the wake-up can start the job in time.
      const processor = queue.createProcessor(
        { work: async (p: { n: number }) => void done.push(p.n) },
        { pollInterval: 60_000 },
      );
      processor.startInBackground();
      try {
        // A PUBLISH reaches every node: the subscription may be on any of them.
        const name = `queuedev-wake:${store.prefix}`;
        const named = async () => {
          const lists = await Promise.all(
            cluster()
              .nodes('all')
              .map((node) => node.client('LIST')),
          );
          return lists.some((list) => String(list).includes(`name=${name} `));
        };
        await waitFor(named, { what: `a connection named ${name}` });
        await waitFor(() => processor.isRunning(), { what: 'the processor to run' });
        await queue.addJob({ jobType: 'work', payload: { n: 1 } });
        await waitFor(() => done.length === 1, { what: 'the job, started by the wake-up', timeoutMs: 10_000 });
        // A MULTI (getToken reads two keys of the slot at one instant) goes through the Cluster too.
        const token = await queue.createToken();
        await queue.completeToken(token.id, { ok: true });
        expect(await queue.getToken(token.id)).toMatchObject({ status: 'completed', output: { ok: true } });
      } finally {
        await processor.stopAndDrain();
      }
    } finally {
      client.disconnect();
    }
  });
});
