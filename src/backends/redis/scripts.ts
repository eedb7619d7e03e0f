/**
 * Runs the Lua scripts of lua.generated.ts. Each call is an FCALL of the script's function in
 * one Redis Functions library (`library`, Redis 7): the code the scripts share is defined when
 * the library loads, not at every call. A server that has not got the library (first use, or
 * lost since: a restart without persistence, FUNCTION FLUSH, a failover) answers `Function not
 * found`; the library is then loaded (FUNCTION LOAD, on every master of a Cluster) and the call
 * made once more. A server that refuses FCALL or FUNCTION (Redis 6, or a user the ACL denies
 * them) settles the client on EVALSHA: each script registered once per client with ioredis
 * `defineCommand` (falling back to EVAL once after a script-cache flush), under a
 * `queuedev`-prefixed name so it cannot clash with a caller's own commands. Both run the same
 * scripts (scripts/build-lua.ts).
 */
import type { Redis } from 'ioredis';
import { describeThrown } from '../../failure.js';
import { serversOf } from './connection.js';
import { storeName } from './keys.js';
import { library, scripts, type LuaScript } from './lua.generated.js';
import { refusesForNow } from './store-errors.js';

export type ScriptName = keyof typeof scripts;
export type ScriptArg = string | number;
export type ScriptRunner = <T = unknown>(name: ScriptName, args: ScriptArg[]) => Promise<T>;

const registered = new WeakSet<Redis>();

function commandName(script: LuaScript): string {
  return `queuedev${script.name[0]!.toUpperCase()}${script.name.slice(1)}`;
}

function register(client: Redis): void {
  if (registered.has(client)) return;
  for (const script of Object.values(scripts)) {
    client.defineCommand(commandName(script), { numberOfKeys: script.keys.length, lua: script.source });
  }
  registered.add(client);
}

/**
 * A server's refusal of FCALL itself: it has no Functions (Redis 6) or does not let this user
 * run it. Only the command's own name counts: an error a script met inside (a key or command
 * the user may not touch) is the script's, and is thrown. Redis 7 quotes the name with ', Redis
 * 6 with `.
 */
const refusesFcall = (err: unknown) =>
  /unknown command [`']fcall[`']|no permissions to run the 'fcall' command/i.test(describeThrown(err));

/**
 * Whether the server declined to load the library for good: any reply (not a lost connection)
 * but a refusal for now (a server loading, read-only, out of memory; refused credentials), which
 * fails the call as it would any other. FUNCTION refused (Redis 6, the ACL) is one; a server
 * whose Functions cannot take the library is another.
 */
const declinesLibrary = (err: unknown) =>
  err instanceof Error && err.name === 'ReplyError' && !refusesForNow(err.message);

/** The clients whose server refused Functions: they run the scripts by EVALSHA from then on. */
const scriptsOnly = new WeakSet<Redis>();

/** The library's load on each server of a client, while one is under way (shared by its calls). */
const loads = new WeakMap<Redis, Promise<void>>();

/** Loads the library on every server of `client`. */
function loadLibrary(client: Redis): Promise<void> {
  let load = loads.get(client);
  if (!load) {
    load = Promise.all(
      serversOf(client).map(async (server) => {
        try {
          await server.call('FUNCTION', 'LOAD', library.source);
        } catch (err) {
          // Loaded already, by another client or process of this version.
          if (!describeThrown(err).includes(`Library '${library.name}' already exists`)) throw err;
        }
      }),
    )
      .then(() => undefined)
      .finally(() => loads.delete(client));
    loads.set(client, load);
  }
  return load;
}

/** A runner calling the scripts on `client` with the keys of the queue under `prefix` on database `db`. */
export function createScriptRunner(client: Redis, prefix: string, db: number): ScriptRunner {
  register(client);
  const commands = client as unknown as Record<string, (...a: ScriptArg[]) => Promise<unknown>>;
  // Per script, once: its function's and command's names and its keys under `prefix`. The
  // command itself is looked up at each call, as ioredis keeps it on the client.
  const calls = new Map(
    Object.values(scripts).map((s) => [
      s.name,
      {
        fn: `${library.name}_${s.name}`,
        command: commandName(s),
        keys: s.keys.map((k) => storeName(prefix, k, db)),
      },
    ]),
  );
  const byEvalsha = <T>(command: string, keys: string[], values: string[]) =>
    commands[command]!.call(client, ...keys, ...values) as Promise<T>;
  return async <T>(name: ScriptName, args: ScriptArg[]) => {
    const { fn, command, keys } = calls.get(name)!;
    const values = args.map(String);
    if (scriptsOnly.has(client)) return byEvalsha<T>(command, keys, values);
    const fcall = () => client.fcall(fn, keys.length, ...keys, ...values) as Promise<T>;
    try {
      return await fcall();
    } catch (err) {
      if (refusesFcall(err)) {
        scriptsOnly.add(client);
        return byEvalsha<T>(command, keys, values);
      }
      if (!/^ERR Function not found/i.test(describeThrown(err))) throw err;
    }
    // The server has not got this version's library (first use, or lost since): load it, then
    // call once more. A load declined for good settles the client on EVALSHA.
    try {
      await loadLibrary(client);
    } catch (err) {
      if (!declinesLibrary(err)) throw err;
      scriptsOnly.add(client);
      return byEvalsha<T>(command, keys, values);
    }
    return fcall();
  };
}
