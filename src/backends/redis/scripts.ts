/**
 * Runs the Lua scripts of lua.generated.ts. Each is registered once per client with ioredis
 * `defineCommand` (EVALSHA, falling back to EVAL once after a script-cache flush), under a
 * `queuedev`-prefixed name so it cannot clash with a caller's own commands.
 */
import type { Redis } from 'ioredis';
import { keyName } from './keys.js';
import { scripts, type LuaScript } from './lua.generated.js';

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

/** A runner calling the scripts on `client` with the keys of the queue under `prefix`. */
export function createScriptRunner(client: Redis, prefix: string): ScriptRunner {
  register(client);
  const commands = client as unknown as Record<string, (...a: ScriptArg[]) => Promise<unknown>>;
  // Per script, once: its command's name and its keys under `prefix`. The command itself is
  // looked up at each call, as ioredis keeps it on the client.
  const calls = new Map(
    Object.values(scripts).map((s) => [
      s.name,
      { command: commandName(s), keys: s.keys.map((k) => keyName(prefix, k)) },
    ]),
  );
  return <T>(name: ScriptName, args: ScriptArg[]) => {
    const { command, keys } = calls.get(name)!;
    return commands[command]!.call(client, ...keys, ...args.map(String)) as Promise<T>;
  };
}
