/**
 * The eviction check. A Redis whose `maxmemory-policy` is anything but `noeviction` deletes
 * keys when it reaches `maxmemory`: job hashes, index entries and schedules vanish without an
 * error, and the queue cannot tell. So when the queue first uses the store, it reads the policy
 * of every server its keys may live on (the server, or each master of a Redis Cluster) and
 * reports an EvictionPolicyError once if one evicts. With `noeviction`, a full Redis refuses
 * writes instead (OOM), which the queue reports as StoreUnavailableError and loses nothing.
 *
 * Managed services often refuse CONFIG: then nothing is reported (the check cannot tell), and
 * no call fails because of the check.
 */
import type { Redis } from 'ioredis';
import { EvictionPolicyError } from '../../errors.js';
import { serversOf } from './connection.js';

/** The servers the queue's keys may live on, each with its `host:port`. */
function addressed(client: Redis): { address: string; server: Redis }[] {
  return serversOf(client).map((server) => ({ address: `${server.options.host}:${server.options.port}`, server }));
}

/** The policy of `server`, or undefined when it refuses to say (CONFIG disabled, no permission). */
async function policyOf(server: Redis): Promise<string | undefined> {
  try {
    // [name, value], or [] when the server has no such setting
    return (await server.config('GET', 'maxmemory-policy'))[1];
  } catch {
    return undefined;
  }
}

/**
 * Reads the eviction policy of the queue's servers; resolves with the error to report, or null
 * when every server that answered keeps its keys (`noeviction`).
 */
export async function checkEvictionPolicy(client: Redis, describeStore: string): Promise<EvictionPolicyError | null> {
  const policies: Record<string, string> = {};
  for (const { address, server } of addressed(client)) {
    const policy = await policyOf(server);
    if (policy !== undefined && policy !== 'noeviction') policies[address] = policy;
  }
  const evicting = Object.entries(policies);
  if (evicting.length === 0) return null;
  const list = evicting.map(([address, policy]) => `${address} (maxmemory-policy ${policy})`).join(', ');
  return new EvictionPolicyError(
    `The Redis store ${describeStore} may evict keys: ${list}. An evicting Redis deletes jobs, schedules and ` +
      'tokens silently once it reaches maxmemory. Set maxmemory-policy to noeviction (in redis.conf, with ' +
      "CONFIG SET, or in your provider's settings): a full Redis then refuses writes, which the queue reports, " +
      'instead of losing them.',
    policies,
  );
}
