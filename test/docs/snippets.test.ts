/**
 * Every TypeScript and JavaScript block of README.md and docs/*.md compiles as pasted, under
 * @tsconfig/strictest, with node16 and with bundler module resolution. The blocks become modules
 * of a scratch project (the convention a page follows to say what a block assumes, continues or
 * skips is in test/docs/snippets.ts) that imports `queuedev` and `queuedev/dashboard` as an
 * application does: from an installed package whose declarations are the ones `npm run build`
 * publishes, built here with the package's tsup configuration. Building them takes most of the
 * test's time (half a minute on a quiet machine); a `paths` mapping to src would be quicker but
 * would compile src under the scratch project's options, not the declarations users get. One
 * TypeScript program per resolution checks every block at once; a failure names the page, the
 * line and the message. On top of @tsconfig/strictest: verbatimModuleSyntax, as `tsc --init`
 * sets it, and no unused-name checks (below).
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageSnippets, type Origin, type Skipped, type Snippet } from './snippets.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PAGES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const ASSUMPTIONS_FILE = join(ROOT, 'test/docs/snippet-assumptions.ts');
const ASSUMPTIONS = './assumed.js';

/**
 * Modules the blocks import by a path of the application's own: a dashboard page imports the
 * queue and the handlers from the application's files, a Next.js route from `@/lib/...`.
 */
const SCRATCH_MODULES: Record<string, string> = {
  'snippets/queue.ts': `export { queue } from '${ASSUMPTIONS}';`,
  'snippets/handlers.ts': `export { handlers } from '${ASSUMPTIONS}';`,
  'lib/dashboard.ts': `export { dashboard } from '../snippets/assumed.js';`,
  'lib/auth.ts': `export declare function isAdmin(request: Request): Promise<boolean>;`,
  // Packages a page shows and the repository does not install.
  'modules.d.ts': `declare module '@opentelemetry/sdk-node' {
  export class NodeSDK {
    constructor(config: { serviceName?: string });
    start(): void;
  }
}`,
};

/** A page that breaks the rules on purpose: the check must report its block where it is. */
const BROKEN_PAGE = {
  page: 'broken.md',
  text: [
    '# Broken',
    '',
    '<!-- snippet: assumes queue -->',
    '```ts',
    "await queue.addJob({ jobType: 'email.send', payload: { to: 'a@example.com' } });",
    '```',
    '',
  ].join('\n'),
};

const RESOLUTIONS = {
  node16: { module: 'node16', moduleResolution: 'node16' },
  bundler: { module: 'esnext', moduleResolution: 'bundler' },
} as const;
type Resolution = keyof typeof RESOLUTIONS;

let scratch: string;
let snippets: Snippet[];
let skipped: Skipped[];
const failures = {} as Record<Resolution, string[]>;

function buildDeclarations(outDir: string): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(
      join(ROOT, 'node_modules', '.bin', 'tsup'),
      ['--dts-only', '--out-dir', outDir],
      { cwd: ROOT },
      (err, stdout, stderr) => (err ? reject(new Error(`tsup failed: ${stdout}\n${stderr}`)) : resolve()),
    );
  });
}

function write(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}

/** The package as installed: its package.json and the built declarations, next to the repository's other packages. */
async function installPackage(dir: string): Promise<void> {
  mkdirSync(join(dir, 'node_modules'));
  for (const entry of readdirSync(join(ROOT, 'node_modules'))) {
    if (entry.startsWith('.')) continue;
    symlinkSync(join(ROOT, 'node_modules', entry), join(dir, 'node_modules', entry));
  }
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Record<string, unknown>;
  const installed = join(dir, 'node_modules', 'queuedev');
  const { name, version, type, main, module, types, exports, typesVersions } = pkg;
  write(
    join(installed, 'package.json'),
    JSON.stringify({ name, version, type, main, module, types, exports, typesVersions }),
  );
  await buildDeclarations(join(installed, 'dist'));
}

function check(resolution: Resolution): string[] {
  const configFile = join(scratch, `tsconfig.${resolution}.json`);
  const parsed = ts.getParsedCommandLineOfConfigFile(
    configFile,
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} },
  );
  if (!parsed) throw new Error(`cannot read ${configFile}`);
  if (parsed.errors.length > 0) throw new Error(ts.formatDiagnostics(parsed.errors, formatHost));
  const program = ts.createProgram(parsed.fileNames, parsed.options);
  const byFile = new Map(snippets.map((s) => [join(scratch, s.file), s]));
  return ts
    .getPreEmitDiagnostics(program)
    .map((d) => {
      const message = ts.flattenDiagnosticMessageText(d.messageText, '\n');
      if (!d.file || d.start === undefined) return { page: '', line: 0, text: `TS${d.code}: ${message}` };
      const { line } = d.file.getLineAndCharacterOfPosition(d.start);
      const snippet = byFile.get(d.file.fileName);
      const where: Origin = snippet
        ? snippet.origins[line]!
        : { page: relative(scratch, d.file.fileName), line: line + 1 };
      return { ...where, text: `${where.page}:${where.line} TS${d.code}: ${message}` };
    })
    .sort((a, b) => a.page.localeCompare(b.page) || a.line - b.line)
    .map((f) => f.text);
}

/** The names a module exports as types only (type aliases, interfaces, `export type { ... }`). */
function typeExports(text: string): Set<string> {
  const file = ts.createSourceFile('assumed.ts', text, ts.ScriptTarget.Latest);
  const names = new Set<string>();
  const exported = (n: ts.Node) =>
    ts.canHaveModifiers(n) && ts.getModifiers(n)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
  for (const statement of file.statements) {
    if ((ts.isTypeAliasDeclaration(statement) || ts.isInterfaceDeclaration(statement)) && exported(statement)) {
      names.add(statement.name.text);
    } else if (
      ts.isExportDeclaration(statement) &&
      statement.exportClause &&
      ts.isNamedExports(statement.exportClause)
    ) {
      for (const e of statement.exportClause.elements) if (statement.isTypeOnly || e.isTypeOnly) names.add(e.name.text);
    }
  }
  return names;
}

const formatHost: ts.FormatDiagnosticsHost = {
  getCanonicalFileName: (f) => f,
  getCurrentDirectory: () => scratch,
  getNewLine: () => '\n',
};

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'queuedev-snippets-'));
  const pages = [...PAGES.map((page) => ({ page, text: readFileSync(join(ROOT, page), 'utf8') })), BROKEN_PAGE];
  const assumptions = { module: ASSUMPTIONS, types: typeExports(readFileSync(ASSUMPTIONS_FILE, 'utf8')) };
  const extracted = pages.map(({ page, text }) => pageSnippets(page, text, assumptions));
  snippets = extracted.flatMap((p) => p.snippets);
  skipped = extracted.flatMap((p) => p.skipped);
  for (const s of snippets) write(join(scratch, s.file), s.text);
  write(join(scratch, 'snippets/assumed.ts'), readFileSync(ASSUMPTIONS_FILE, 'utf8'));
  for (const [file, text] of Object.entries(SCRATCH_MODULES)) write(join(scratch, file), text);
  // An ES module project, as the pages' top-level await needs.
  write(join(scratch, 'package.json'), JSON.stringify({ name: 'snippets', private: true, type: 'module' }));
  for (const [resolution, options] of Object.entries(RESOLUTIONS)) {
    const config = {
      extends: '@tsconfig/strictest/tsconfig.json',
      compilerOptions: {
        ...options,
        target: 'es2022',
        lib: ['es2023'],
        types: ['node'],
        noEmit: true,
        // As `tsc --init` sets it: type-only imports say so.
        verbatimModuleSyntax: true,
        allowJs: true,
        checkJs: true,
        // A block shows one step of a program, not the whole of it: what it defines for later
        // steps, or a parameter the step does not need, is not a mistake in the block.
        noUnusedLocals: false,
        noUnusedParameters: false,
        // The Next.js project's alias for its own files (`@/lib/auth`), mapped to the file itself
        // so that node16 resolution, which wants extensions, finds it as bundler resolution does.
        paths: { '@/*': ['./*.ts'] },
      },
      include: ['snippets', 'lib', 'modules.d.ts'],
    };
    write(join(scratch, `tsconfig.${resolution}.json`), JSON.stringify(config, null, 2));
  }
  await installPackage(scratch);
  for (const resolution of Object.keys(RESOLUTIONS) as Resolution[]) failures[resolution] = check(resolution);
}, 300_000);

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe('the code blocks of README.md and docs/', () => {
  it('are found on every page that has some, few of them skipped and each skip with its reason', () => {
    const pages = new Set(snippets.map((s) => s.origins[0]!.page));
    expect(pages).toContain('README.md');
    expect(pages).toContain('docs/getting-started.md');
    expect(snippets.length).toBeGreaterThan(60);
    // Listed in the test output, so a new skip shows in review.
    console.log(`skipped blocks:\n${skipped.map((s) => `  ${s.page}:${s.line}: ${s.reason}`).join('\n') || '  none'}`);
    expect(skipped.length).toBeLessThanOrEqual(5);
  });

  for (const resolution of Object.keys(RESOLUTIONS) as Resolution[]) {
    it(`compile under @tsconfig/strictest with ${resolution} resolution`, () => {
      expect(failures[resolution].filter((f) => !f.startsWith(`${BROKEN_PAGE.page}:`))).toEqual([]);
    });

    it(`report a block that does not compile by its page and line (${resolution})`, () => {
      const broken = failures[resolution].filter((f) => f.startsWith(`${BROKEN_PAGE.page}:`));
      expect(broken).toHaveLength(1);
      expect(broken[0]).toMatch(/^broken\.md:5 TS2741: Property 'subject' is missing/);
    });
  }
});

describe('the snippet directives', () => {
  const page = (directive: string, lang = 'ts') => `<!-- snippet: ${directive} -->\n\n\`\`\`${lang}\nx;\n\`\`\`\n`;
  const assumptions = { module: './assumed.js', types: new Set(['Payloads']) };

  it('import what a block assumes, types as types, and wrap a handler body', () => {
    const [snippet] = pageSnippets('p.md', page("assumes queue, Payloads; in handler 'a.b'"), assumptions).snippets;
    expect(snippet!.text.split('\n')).toEqual([
      "import { queue, type Payloads } from './assumed.js';",
      "queue.createProcessor({ 'a.b': async (payload, signal, ctx) => {",
      'x;',
      '} });',
      'export {};',
    ]);
    expect(snippet!.origins.map((o) => o.line)).toEqual([1, 1, 4, 1, 1]);
  });

  it('continue the previous block of the page in the same module', () => {
    const text = '```ts\nconst a = 1;\n```\n\n<!-- snippet: continues -->\n```ts\nconsole.log(a);\n```\n';
    const { snippets: found } = pageSnippets('p.md', text, assumptions);
    expect(found).toHaveLength(1);
    expect(found[0]!.text).toBe('const a = 1;\nconsole.log(a);\nexport {};');
  });

  it('refuse a skip without its reason, an unknown directive and one that is not before a checked block', () => {
    expect(() => pageSnippets('p.md', page('skip'), assumptions)).toThrow(/p\.md:1: unknown snippet directive "skip"/);
    expect(() => pageSnippets('p.md', page('assume queue'), assumptions)).toThrow(/unknown snippet directive/);
    expect(() => pageSnippets('p.md', page('assumes queue', 'sh'), assumptions)).toThrow(/not checked \(sh\)/);
    expect(() => pageSnippets('p.md', '<!-- snippet: assumes queue -->\nSome text.\n', assumptions)).toThrow(
      /p\.md:1: snippet directive not followed by a code block/,
    );
    expect(pageSnippets('p.md', page('skip: output, not code'), assumptions)).toEqual({
      snippets: [],
      skipped: [{ page: 'p.md', line: 3, reason: 'output, not code' }],
    });
  });
});
