/**
 * What the Redis server executes, for the cost tests: a private redis-server per test file, so
 * no other client's commands are counted, and its INFO commandstats, which counts the commands
 * run inside scripts too.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { startPrivateRedis, type PrivateServer } from '../helpers/private-servers.js';

export interface PrivateRedis {
  /** A client of the file's private server. */
  readonly client: Redis;
}

/** Starts a private redis-server before the file's tests and stops it after them. */
export function usePrivateRedis(): PrivateRedis {
  let server: PrivateServer;
  let client: Redis;
  beforeAll(async () => {
    server = await startPrivateRedis();
    client = new Redis({ port: server.port });
  }, 30_000);
  afterAll(async () => {
    client.disconnect();
    await server.stop();
  });
  return {
    get client() {
      return client;
    },
  };
}

/**
 * Calls the server executed so far of the commands whose name `counts` accepts; by default every
 * command except INFO itself (the probe).
 */
export async function commandCalls(
  client: Redis,
  counts: (name: string) => boolean = (name) => name !== 'info',
): Promise<number> {
  const info = await client.info('commandstats');
  let total = 0;
  for (const m of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
    if (counts(m[1]!)) total += Number(m[2]);
  }
  return total;
}

/** What one script call ran: its function's name, the commands it ran and their arguments. */
export interface ScriptCall {
  /** The script's name (`completeJobs`), without the library's prefix. */
  script: string;
  /** Commands the script ran. */
  commands: number;
  /**
   * Arguments of those commands, key names excepted: the fields, members, scores and values
   * they wrote or asked for, so a variadic command counts each element.
   */
  elements: number;
}

/**
 * The script calls `run` made on the server of `client`, each with the commands it ran, from
 * MONITOR (which shows every command a script runs, right after the FCALL that ran it: nothing
 * else runs meanwhile). Calls of other clients during `run` are counted too: use a private
 * server.
 */
export async function scriptCalls(client: Redis, run: () => Promise<unknown>): Promise<ScriptCall[]> {
  const monitor = await client.monitor();
  const calls: ScriptCall[] = [];
  // Lines still arriving after the marker (the disconnect takes a moment) belong to later calls.
  let stopped = false;
  const marker = `end-of-run-${Math.random()}`;
  let reached: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (reached = resolve));
  monitor.on('monitor', (_time: string, args: string[], source: string) => {
    const name = args[0]?.toLowerCase();
    if (stopped) return;
    if (name === 'fcall') {
      calls.push({ script: String(args[1]).replace(/^queuedev_[0-9a-f]+_/, ''), commands: 0, elements: 0 });
    } else if (source === 'lua' && calls.length > 0) {
      calls.at(-1)!.commands++;
      calls.at(-1)!.elements += Math.max(0, args.length - 2);
    } else if (name === 'echo' && args[1] === marker) {
      stopped = true;
      reached();
    }
  });
  try {
    await run();
    await client.echo(marker);
    await done;
  } finally {
    monitor.disconnect();
  }
  return calls;
}
