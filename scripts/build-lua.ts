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
 *
 * It also emits the same scripts as one Redis Functions library (Redis 7: `FUNCTION LOAD`, then
 * `FCALL`), which scripts.ts loads where the server allows it. In the library each include is
 * defined once, when the library loads, instead of at every call: its `local function`
 * definitions stay at the library's top level, while every other top-level statement of an
 * include (the per-call state: `local deferred = {}`, the formatters and their caches, hook
 * registrations, constants) is declared there and run again at the start of each function of a
 * script that includes it, in include order, so each call starts from the state an EVAL would.
 * A script's own lines after its includes are the function's body, called with the keys and
 * arguments of FCALL (`K` and `ARGV`, upvalues of the library the includes read).
 */
import { createHash } from 'node:crypto';
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
  /** The script's own lines after its includes (the library function's body). */
  body: string;
  /** The includes its own lines name, in order (each may name others). */
  includes: string[];
}

/** The scripts as one Redis Functions library. */
export interface BuiltLibrary {
  /** `queuedev_` and a hash of the library: each version loads beside the others. */
  name: string;
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
    const includes = [...body.matchAll(/^--- @include "([\w-]+)"/gm)].map((m) => m[1]!);
    return { name: camelCase(file), keys, source, body: ownLines(file, body), includes };
  });
}

/** A script's lines after its `--- @include` lines, which must all come before its own code. */
function ownLines(file: string, body: string): string {
  const lines = body.split('\n');
  const last = lines.findLastIndex((line) => /^--- @include /.test(line));
  if (last < 0) return body;
  const early = lines.slice(0, last).find((line) => !/^(--.*|\s*)$/.test(line));
  if (early !== undefined) {
    throw new LuaBuildError(`${file}: code before its last --- @include line ("${early.trim()}"); put includes first`);
  }
  return lines.slice(last + 1).join('\n');
}

/** An include split for the library: what stays at its top level, and what runs per call. */
interface SplitInclude {
  /** The include with its per-call statements reduced to declarations (`local x`). */
  definitions: string;
  /**
   * Its per-call statements, as assignments to those declarations, and the includes it names,
   * where it names them: a function runs them in the order the EVAL expansion would.
   */
  perCall: ({ statement: string } | { include: string })[];
}

/**
 * Splits an include's top-level statements (those starting at column 0): a `local function`
 * runs to the first `end` at column 0 and stays; any other statement runs to the line before
 * the next statement or comment at column 0 (lines that are indented, or open with `end`, `}`
 * or `)`, continue it) and runs per call.
 */
function splitInclude(name: string, text: string): SplitInclude {
  const lines = text.split('\n');
  const definitions: string[] = [];
  const perCall: SplitInclude['perCall'] = [];
  // A statement goes on over indented lines and lines opening with `end`, `}` or `)`, and over
  // blank lines followed by one of those.
  const continuesAt = (j: number): boolean => {
    const line = lines[j];
    if (line === undefined) return false;
    return line === '' ? continuesAt(j + 1) : /^(\s|[})]|end\b)/.test(line);
  };
  for (let i = 0; i < lines.length;) {
    const line = lines[i]!;
    const include = /^--- @include "([\w-]+)"/.exec(line);
    if (include) {
      perCall.push({ include: include[1]! });
      definitions.push(line);
      i++;
    } else if (line.startsWith('--') || line === '') {
      definitions.push(line);
      i++;
    } else if (/^local function /.test(line)) {
      const end = lines.findIndex((l, j) => j > i && /^end\b/.test(l));
      if (end < 0) throw new LuaBuildError(`includes/${name}.lua: no "end" at column 0 closes "${line}"`);
      definitions.push(...lines.slice(i, end + 1));
      i = end + 1;
    } else if (continuesAt(i)) {
      throw new LuaBuildError(`includes/${name}.lua: line ${i + 1} continues no statement: "${line}"`);
    } else {
      let j = i + 1;
      while (continuesAt(j)) j++;
      const statement = lines.slice(i, j).join('\n').trimEnd();
      const declared = /^local ([\w, ]+?)\s*=/.exec(statement);
      if (declared) {
        definitions.push(`local ${declared[1]!}`);
        perCall.push({ statement: statement.slice('local '.length) });
      } else if (/^local /.test(statement)) {
        throw new LuaBuildError(`includes/${name}.lua: a top-level local without a value ("${line}"); give it one`);
      } else {
        perCall.push({ statement });
      }
      i = j;
    }
  }
  return { definitions: definitions.join('\n'), perCall };
}

/** FCALL passes the keys and arguments to the function; the includes read them as upvalues. */
const LIBRARY_PRELUDE =
  '-- The keys (by name) and arguments of the call running now: set first by every function.\nlocal K\nlocal ARGV';

/**
 * The scripts as one library: every include defined once, in the order the scripts include
 * them (an include's own includes where it names them), then one function per script, whose
 * body starts by setting K and ARGV and running the per-call statements of its includes.
 */
export function buildLibrary(scripts: BuiltScript[], luaDir = LUA_DIR): BuiltLibrary {
  const split = new Map<string, SplitInclude>();
  const splitOf = (name: string) => {
    let found = split.get(name);
    if (!found) {
      found = splitInclude(name, readFileSync(join(luaDir, 'includes', `${name}.lua`), 'utf8').trimEnd());
      split.set(name, found);
    }
    return found;
  };
  // One chunk holds every include: a name two includes both define would rebind the other's
  // callers, where each script alone sees only its own.
  const definedBy = new Map<string, string>();
  const claimNames = (include: string, definitions: string) => {
    for (const m of definitions.matchAll(/^local (?:function )?([\w, ]+?)(?:\(|\s*$)/gm)) {
      for (const name of m[1]!.split(',').map((n) => n.trim())) {
        const other = definedBy.get(name);
        if (other && other !== include) {
          throw new LuaBuildError(`includes/${include}.lua and includes/${other}.lua both define "${name}"`);
        }
        definedBy.set(name, include);
      }
    }
  };
  const emitted = new Set<string>();
  const emit = (name: string): string => {
    if (emitted.has(name)) return `-- (${name} already defined)`;
    emitted.add(name);
    claimNames(name, splitOf(name).definitions);
    const text = splitOf(name).definitions.replace(/^--- @include "([\w-]+)".*$/gm, (_, inner: string) => emit(inner));
    return `-- begin include ${name}\n${text}\n-- end include ${name}`;
  };
  const definitions = scripts.flatMap((s) => s.includes.filter((name) => !emitted.has(name)).map(emit));
  // A script's per-call statements: its includes' in expansion order, each include once.
  const perCallOf = (names: string[]) => {
    const visited = new Set<string>();
    const visit = (name: string): string[] => {
      if (visited.has(name)) return [];
      visited.add(name);
      return splitOf(name).perCall.flatMap((item) => ('include' in item ? visit(item.include) : [item.statement]));
    };
    return names.flatMap(visit);
  };
  const functions = scripts.map((s) => {
    const table = s.keys.map((k, i) => `['${k}'] = keys[${i + 1}]`).join(', ');
    const perCall = perCallOf(s.includes);
    return [
      `redis.register_function('@@LIBRARY@@_${s.name}', function(keys, args)`,
      `K = { ${table} }`,
      'ARGV = args',
      ...perCall,
      s.body.replace(/^\n+/, '').trimEnd(),
      'end)',
    ].join('\n');
  });
  const body = [LIBRARY_PRELUDE, ...definitions, ...functions].join('\n\n');
  const name = `queuedev_${createHash('sha1').update(body).digest('hex').slice(0, 12)}`;
  return { name, source: `#!lua name=${name}\n${body.replaceAll('@@LIBRARY@@', name)}\n` };
}

export function renderModule(scripts: BuiltScript[], library: BuiltLibrary): string {
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
  lines.push(
    '/** The same scripts as one Redis Functions library: the function of script `x` is `${name}_x`. */',
    `export const library = { name: ${JSON.stringify(library.name)}, source: ${JSON.stringify(library.source)} } as const;`,
    '',
  );
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
    const scripts = buildScripts(options.luaDir);
    rendered = renderModule(scripts, buildLibrary(scripts, options.luaDir));
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
