/**
 * The code blocks of README.md and docs/*.md as the files of a scratch TypeScript project, for
 * test/docs/snippets.test.ts to type-check. The convention the pages follow:
 *
 * - Every block fenced as `ts`, `typescript`, `js` or `javascript` is checked, each as an ES
 *   module of its own (`.ts` or `.js`, top-level `await` allowed). Other languages (`sh`,
 *   `text`, ...) are not.
 * - An HTML comment on the line before the fence (blank lines between are allowed), invisible
 *   in the rendered page, tells what the block relies on. Its directives, separated by `;`:
 *   - `assumes a, b`: the block uses these names without defining them. They are the exports of
 *     test/docs/snippet-assumptions.ts (a `queue` typed with the job types the docs use,
 *     `sendMail`, `pool`, ...), imported at the top of the block. A name that file does not
 *     export fails the check.
 *   - `continues`: the block goes on from the previous checked block of the same page, in the
 *     same module (the names it defined stay in scope).
 *   - `in handlers`: the block is entries of a handler map, checked inside
 *     `queue.createProcessor({ ... })`.
 *   - `in handler 'job.type'`: the block is the body of that job type's handler, checked with
 *     its `payload`, `signal` and `ctx` in scope.
 *   - `in function`: the block is the body of an async function (it may `return`), such as a
 *     route's.
 *   - `skip: reason`: the block is not compiled (a fragment, a signature, output). Keep these
 *     rare; the reason is required, and the test lists them.
 *   For example `<!-- snippet: assumes queue, sendMail -->`.
 * - Relative imports (`./queue.js`, `./handlers.js`) and the `@/lib/...` alias of a Next.js
 *   project resolve to small modules of the scratch project (SCRATCH_MODULES in the test).
 */

/** The languages checked, and the extension of the module each becomes. */
const LANGUAGES = new Map([
  ['ts', '.ts'],
  ['typescript', '.ts'],
  ['js', '.js'],
  ['javascript', '.js'],
]);

export interface Origin {
  page: string;
  line: number;
}

export interface Snippet {
  /** Path in the scratch project, e.g. `snippets/docs-jobs-10.ts`. */
  file: string;
  text: string;
  /** The page line of each line of `text` (1-based lines both; the directive for added lines). */
  origins: Origin[];
}

export interface Skipped extends Origin {
  reason: string;
}

export interface PageSnippets {
  snippets: Snippet[];
  skipped: Skipped[];
}

interface Block {
  lang: string;
  /** 1-based line of the opening fence. */
  fence: number;
  body: string[];
  directive: { line: number; text: string } | null;
}

const DIRECTIVE = /^\s*<!--\s*snippet:(.*?)-->\s*$/;

function blocks(page: string, text: string): Block[] {
  const lines = text.split('\n');
  const found: Block[] = [];
  let pending: { line: number; text: string } | null = null;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const directive = DIRECTIVE.exec(line);
    if (directive) {
      if (pending) throw new Error(`${page}:${pending.line}: snippet directive not followed by a code block`);
      pending = { line: i + 1, text: directive[1]!.trim() };
      continue;
    }
    const fence = /^(\s*)(`{3,}|~{3,})\s*([\w-]*)/.exec(line);
    if (!fence) {
      if (pending && line.trim() !== '') {
        throw new Error(`${page}:${pending.line}: snippet directive not followed by a code block`);
      }
      continue;
    }
    const [, indent, marker, lang] = fence;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const l = lines[j]!;
      const t = l.trim();
      if (t.length >= marker!.length && t === marker![0]!.repeat(t.length)) break;
      body.push(l.startsWith(indent!) ? l.slice(indent!.length) : l.trimStart());
    }
    if (j === lines.length) throw new Error(`${page}:${i + 1}: code block never closed`);
    if (pending && !LANGUAGES.has(lang!)) {
      throw new Error(
        `${page}:${pending.line}: snippet directive before a block that is not checked (${lang || 'no language'})`,
      );
    }
    found.push({ lang: lang!, fence: i + 1, body, directive: pending });
    pending = null;
    i = j;
  }
  if (pending) throw new Error(`${page}:${pending.line}: snippet directive not followed by a code block`);
  return found;
}

interface Directives {
  assumes: string[];
  continues: boolean;
  wrap: { open: string; close: string } | null;
  skip: string | null;
}

function parseDirectives(page: string, directive: { line: number; text: string } | null): Directives {
  const result: Directives = { assumes: [], continues: false, wrap: null, skip: null };
  if (!directive) return result;
  const where = `${page}:${directive.line}`;
  for (const part of directive.text.split(';').map((p) => p.trim())) {
    let m: RegExpExecArray | null;
    if ((m = /^assumes\s+(.+)$/.exec(part))) {
      for (const name of m[1]!.split(',').map((n) => n.trim())) {
        if (!/^[A-Za-z_$][\w$]*$/.test(name)) throw new Error(`${where}: "${name}" is not a name to assume`);
        result.assumes.push(name);
      }
    } else if (part === 'continues') {
      result.continues = true;
    } else if (part === 'in handlers') {
      result.wrap = { open: 'queue.createProcessor({', close: '});' };
      result.assumes.push('queue');
    } else if ((m = /^in handler\s+('[^']+')$/.exec(part))) {
      result.wrap = { open: `queue.createProcessor({ ${m[1]}: async (payload, signal, ctx) => {`, close: '} });' };
      result.assumes.push('queue');
    } else if (part === 'in function') {
      result.wrap = { open: 'export async function snippet() {', close: '}' };
    } else if ((m = /^skip:\s*(\S.*)$/.exec(part))) {
      result.skip = m[1]!;
    } else {
      throw new Error(`${where}: unknown snippet directive "${part}" (skip needs a reason after "skip:")`);
    }
  }
  return result;
}

/** `type` marks the type-only names, as verbatimModuleSyntax requires. */
function importLine(names: string[], assumptions: Assumptions): string {
  const list = names.map((n) => (assumptions.types.has(n) ? `type ${n}` : n)).join(', ');
  return `import { ${list} } from '${assumptions.module}';`;
}

/** The scratch-project file name of a page's block, e.g. `snippets/docs-jobs-10.ts`. */
function fileName(page: string, fence: number, ext: string): string {
  return `snippets/${page.replace(/\.md$/, '').replace(/[^\w]+/g, '-')}-${fence}${ext}`;
}

/** Where the assumed names come from: the module's specifier, and which of its exports are types. */
export interface Assumptions {
  module: string;
  types: ReadonlySet<string>;
}

/** The checked blocks of one page as modules of the scratch project, and the blocks it skips. */
export function pageSnippets(page: string, text: string, assumptions: Assumptions): PageSnippets {
  const snippets: Snippet[] = [];
  const skipped: Skipped[] = [];
  let previous: Snippet | null = null;
  /** The assumed names each module imports already. */
  const imported = new Map<Snippet, Set<string>>();
  for (const block of blocks(page, text)) {
    const ext = LANGUAGES.get(block.lang);
    if (!ext) continue;
    const d = parseDirectives(page, block.directive);
    if (d.skip !== null) {
      skipped.push({ page, line: block.fence, reason: d.skip });
      continue;
    }
    const lines: string[] = [];
    const origins: Origin[] = [];
    const added = (line: string) => {
      lines.push(line);
      origins.push({ page, line: block.directive?.line ?? block.fence });
    };
    const names = [...new Set(d.assumes)];
    if (d.continues) {
      if (!previous) throw new Error(`${page}:${block.directive!.line}: "continues" but no checked block before it`);
      // The names the earlier blocks imported are in scope already.
      const have = imported.get(previous)!;
      const more = names.filter((n) => !have.has(n));
      if (more.length > 0) added(importLine(more, assumptions));
      for (const n of more) have.add(n);
    } else if (names.length > 0) {
      added(importLine(names, assumptions));
    }
    const body = block.body.map((line, i) => ({ line, origin: { page, line: block.fence + 1 + i } }));
    if (d.wrap) {
      // The block's imports stay at the top level, before the wrapper.
      let end = 0;
      for (let i = 0; i < body.length && /^(import\s|\s*$)/.test(body[i]!.line); i++) {
        while (i < body.length && !/;\s*(\/\/.*)?$/.test(body[i]!.line) && body[i]!.line.trim() !== '') i++;
        end = i + 1;
      }
      for (const { line, origin } of body.splice(0, end)) {
        lines.push(line);
        origins.push(origin);
      }
      added(d.wrap.open);
    }
    for (const { line, origin } of body) {
      lines.push(line);
      origins.push(origin);
    }
    if (d.wrap) added(d.wrap.close);
    if (d.continues) {
      // Before the earlier block's closing `export {};`.
      const last = previous!.text.split('\n');
      last.pop();
      previous!.origins.pop();
      previous!.text = [...last, ...lines, 'export {};'].join('\n');
      previous!.origins.push(...origins, { page, line: block.fence });
    } else {
      // `export {}` makes every block a module, so blocks never share names by accident.
      added('export {};');
      const snippet = { file: fileName(page, block.fence, ext), text: lines.join('\n'), origins };
      snippets.push(snippet);
      imported.set(snippet, new Set(names));
      previous = snippet;
    }
  }
  return { snippets, skipped };
}
