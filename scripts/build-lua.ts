/**
 * Turns the Redis backend's Lua scripts (src/backends/redis/lua/*.lua) into the committed
 * module src/backends/redis/lua.generated.ts, so nothing reads .lua files at runtime.
 *
 *   tsx scripts/build-lua.ts          regenerate the module
 *   tsx scripts/build-lua.ts --check  exit 1 when the committed module is stale
 *
 * Each script opens with a `--[[ ... ]]` header stating what it does, its KEYS, ARGV and what
 * it Returns. The header names every key as `KEYS[n] <name>` with a name of keys.ts
 * KEY_NAMES; from that list the build
 * - emits the script's key names in order (the runner passes the real keys as KEYS),
 * - inserts `local K = { ['jobs'] = KEYS[1], ... }` after the header, so the body says
 *   K['jobs'] instead of a bare KEYS index,
 * - checks that the body reaches keys only through K (no KEYS[n], no key name built in Lua,
 *   which would break on a Redis Cluster) and that every key it uses (K['x'], or
 *   K['status:' .. s] for any status) is declared, so a script never touches a key it was
 *   not given (Redis Cluster safety).
 * A line `--- @include "name"` is replaced by lua/includes/name.lua (each file once).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeOrCheck } from './generated-module.js';
import { KEY_NAMES } from '../src/backends/redis/keys.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const LUA_DIR = join(root, 'src/backends/redis/lua');
export const GENERATED_FILE = join(root, 'src/backends/redis/lua.generated.ts');
const STATUS_KEYS = KEY_NAMES.filter((n) => n.startsWith('status:'));

export interface BuiltScript {
  name: string;
  keys: string[];
  source: string;
}

export class LuaBuildError extends Error {}

function camelCase(file: string): string {
  return file.replace(/\.lua$/, '').replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

/** Splits a script into its `--[[ ... ]]` header and body, checking the header's contract. */
function parseHeader(file: string, text: string): { header: string; body: string; keys: string[] } {
  if (!text.startsWith('--[[')) throw new LuaBuildError(`${file}: must open with a --[[ ... ]] header`);
  const end = text.indexOf(']]');
  if (end < 0) throw new LuaBuildError(`${file}: the --[[ header is not closed with ]]`);
  const header = text.slice(0, end + 2);
  for (const word of ['KEYS[1]', 'ARGV[', 'Returns']) {
    if (!header.includes(word))
      throw new LuaBuildError(`${file}: the header must declare ${word.replace('[1]', '')} (missing "${word}")`);
  }
  const keys: string[] = [];
  for (const m of header.matchAll(/KEYS\[(\d+)\]\s+([A-Za-z0-9:_-]+)/g)) {
    const index = Number(m[1]);
    const name = m[2]!;
    if (index !== keys.length + 1)
      throw new LuaBuildError(`${file}: KEYS[${index}] is out of order (expected KEYS[${keys.length + 1}])`);
    if (!KEY_NAMES.includes(name))
      throw new LuaBuildError(`${file}: KEYS[${index}] names unknown key "${name}" (see keys.ts KEY_NAMES)`);
    if (keys.includes(name)) throw new LuaBuildError(`${file}: key "${name}" is declared twice`);
    keys.push(name);
  }
  return { header, body: text.slice(end + 2), keys };
}

function expandIncludes(luaDir: string, file: string, body: string, seen: Set<string>): string {
  return body.replace(/^--- @include "([\w-]+)"[ \t]*$/gm, (_, name: string) => {
    if (seen.has(name)) return `-- (${name} already included)`;
    seen.add(name);
    let text: string;
    try {
      text = readFileSync(join(luaDir, 'includes', `${name}.lua`), 'utf8');
    } catch {
      throw new LuaBuildError(`${file}: included file includes/${name}.lua does not exist`);
    }
    return expandIncludes(luaDir, file, `-- begin include ${name}\n${text.trimEnd()}\n-- end include ${name}`, seen);
  });
}

/**
 * The key argument of a `redis.call`: a K entry, or a variable holding one. A quoted or
 * concatenated name would be a key the runner never passes in KEYS, which Redis Cluster may
 * route to another node (and which no slot check sees).
 */
const BUILT_KEY = /redis\.call\(\s*'[A-Za-z]+'\s*,\s*(?!K\[)([^\s,)][^,)]*?(?:['"]|\.\.)[^,)]*)/;

function checkKeyUse(file: string, body: string, keys: string[]): void {
  if (/\bKEYS\[/.test(body)) throw new LuaBuildError(`${file}: reads KEYS[...] directly; use K['<name>']`);
  const built = BUILT_KEY.exec(body);
  if (built) throw new LuaBuildError(`${file}: builds a key name inside Lua (${built[1]!.trim()}); pass it in KEYS`);
  const used = new Set<string>();
  for (const m of body.matchAll(/K\['([^']+)'\]/g)) used.add(m[1]!);
  if (/K\['status:'\s*\.\./.test(body)) STATUS_KEYS.forEach((k) => used.add(k));
  const missing = [...used].filter((k) => !keys.includes(k));
  if (missing.length > 0) {
    throw new LuaBuildError(`${file}: uses keys its header does not declare: ${missing.join(', ')}`);
  }
}

/** Reads and checks every script of `luaDir`; throws LuaBuildError naming the file and the problem. */
export function buildScripts(luaDir = LUA_DIR): BuiltScript[] {
  const files = readdirSync(luaDir)
    .filter((f) => f.endsWith('.lua'))
    .sort();
  return files.map((file) => {
    const text = readFileSync(join(luaDir, file), 'utf8');
    const { header, body, keys } = parseHeader(file, text);
    const expanded = expandIncludes(luaDir, file, body, new Set());
    checkKeyUse(file, expanded, keys);
    const table = keys.map((k, i) => `['${k}'] = KEYS[${i + 1}]`).join(', ');
    const source = `${header}\nlocal K = { ${table} }\n${expanded.replace(/^\n+/, '')}`;
    return { name: camelCase(file), keys, source };
  });
}

export function renderModule(scripts: BuiltScript[]): string {
  const lines = [
    '// Generated by scripts/build-lua.ts; do not edit',
    '// Source: src/backends/redis/lua/*.lua. Regenerate with `npm run build:lua`.',
    '',
    'export interface LuaScript {',
    '  /** Command name suffix; registered as `queuedev<Name>`. */',
    '  readonly name: string;',
    '  /** Key names (keys.ts KEY_NAMES) in KEYS order. */',
    '  readonly keys: readonly string[];',
    '  readonly source: string;',
    '}',
    '',
  ];
  for (const s of scripts) {
    lines.push(`export const ${s.name}: LuaScript = {`);
    lines.push(`  name: ${JSON.stringify(s.name)},`);
    lines.push(`  keys: ${JSON.stringify(s.keys)},`);
    lines.push(`  source: ${JSON.stringify(s.source)},`);
    lines.push('};', '');
  }
  lines.push(`export const scripts = { ${scripts.map((s) => s.name).join(', ')} } as const;`, '');
  return lines.join('\n');
}

/**
 * Regenerates `outFile` from `luaDir`, or with `check` only compares. `ok` is false when a
 * script is invalid or (check) the module is stale; `message` says what to do.
 */
export function run(options: { check: boolean; luaDir?: string; outFile?: string }): { ok: boolean; message: string } {
  const outFile = options.outFile ?? GENERATED_FILE;
  let rendered: string;
  try {
    rendered = renderModule(buildScripts(options.luaDir));
  } catch (err) {
    if (err instanceof LuaBuildError) return { ok: false, message: `build-lua: ${err.message}` };
    throw err;
  }
  return writeOrCheck({
    tool: 'build-lua',
    outFile,
    rendered,
    sources: 'the Lua sources',
    script: 'build:lua',
    check: options.check,
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { ok, message } = run({ check: process.argv.includes('--check') });
  if (ok) console.log(message);
  else {
    console.error(message);
    process.exit(1);
  }
}
