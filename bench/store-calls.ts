/**
 * Timing the calls a queue sends to its store, from send to reply, for the benchmark scripts
 * that show where a drain's time goes (drain-profile.ts, drain-bound.ts). Never part of
 * `npm test`.
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type pg from 'pg';
import { library, scripts } from '../src/backends/redis/lua.generated.js';

/** Round trips in ms, per kind of call. */
export type CallTimes = Record<'claimJobs' | 'completeJobs', number[]>;

/**
 * Script name of a Redis call: by the function an FCALL names (`<library>_<script>`), or by the
 * SHA1 an EVALSHA sends (where the server refuses Functions).
 */
const scriptByCall = new Map<string, string>([
  ...Object.values(scripts).map((script) => [`fcall ${library.name}_${script.name}`, script.name] as const),
  ...Object.values(scripts).map(
    (script) => [`evalsha ${createHash('sha1').update(script.source).digest('hex')}`, script.name] as const,
  ),
]);
export const scriptOf = (command: string, first: unknown) =>
  scriptByCall.get(`${command.toLowerCase()} ${String(first)}`);

interface SentCommand {
  name: string;
  args: unknown[];
  promise: Promise<unknown>;
}

/** Times the claim and completion scripts `client` sends from now on. */
export function timeScripts(client: Redis): CallTimes {
  const times: CallTimes = { claimJobs: [], completeJobs: [] };
  const send = client.sendCommand.bind(client) as (command: SentCommand, ...rest: unknown[]) => unknown;
  Object.assign(client, {
    sendCommand: (command: SentCommand, ...rest: unknown[]) => {
      const name = scriptOf(command.name, command.args[0]);
      if (name === 'claimJobs' || name === 'completeJobs') {
        const start = performance.now();
        const done = () => times[name].push(performance.now() - start);
        command.promise.then(done, done);
      }
      return send(command, ...rest);
    },
  });
  return times;
}

/**
 * Times the statements of `kinds` (their SQL text, as the queue builds it) that run on `pool`
 * from now on. The queue's own statements go through `pool.query` with a query config.
 */
export function timeStatements(pool: pg.Pool, kinds: Record<keyof CallTimes, string[]>): CallTimes {
  const times: CallTimes = { claimJobs: [], completeJobs: [] };
  const kindOf = new Map<string, keyof CallTimes>();
  for (const kind of Object.keys(kinds) as (keyof CallTimes)[]) for (const text of kinds[kind]) kindOf.set(text, kind);
  const query = pool.query.bind(pool) as (config: unknown, ...rest: unknown[]) => Promise<unknown>;
  Object.assign(pool, {
    query: (config: unknown, ...rest: unknown[]) => {
      const text = typeof config === 'object' && config !== null ? (config as { text?: string }).text : undefined;
      const kind = text === undefined ? undefined : kindOf.get(text);
      const result = query(config, ...rest);
      if (kind !== undefined) {
        const start = performance.now();
        const done = () => times[kind].push(performance.now() - start);
        result.then(done, done);
      }
      return result;
    },
  });
  return times;
}
