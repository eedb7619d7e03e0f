/**
 * The published package, as a user installs it: builds and packs once, then installs the
 * tarball into throwaway projects beside only the drivers each one uses, and checks the
 * install, the declarations in a strict project, a job run end to end from the bundled code,
 * the README's quick start as a new user runs it, the installed `queue-cli`, the tarball's
 * contents and links, and attw and publint on it.
 *
 * Needs the package registry (for pg, ioredis and @types packages) and takes a minute or two.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PG_URL, REDIS_URL, uniqueName } from '../helpers/backends.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = (name: string) => join(ROOT, 'node_modules', '.bin', name);
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Record<string, unknown> & {
  version: string;
};

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command without npm's own npm_* variables, so a nested npm acts on `cwd` only. */
function run(command: string, args: string[], cwd: string, env: Record<string, string> = {}): Promise<Run> {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.toLowerCase().startsWith('npm_')));
  return new Promise((resolve) => {
    execFile(command, args, { cwd, env: { ...clean, ...env }, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

function show(r: Run): string {
  return `exit ${r.code}\n${r.stdout}\n${r.stderr}`;
}

/** The projects installed from the tarball, by the drivers they hold. */
const CONSUMERS = {
  pgOnly: ['pg', '@types/pg', '@types/node@20'],
  redisOnly: ['ioredis', '@types/node@20'],
  bothLatest: ['pg', 'ioredis@latest'],
  redis5: ['ioredis@5'],
  // The documentation server's optional peers, as its usage tells a project to install them.
  mcp: ['@modelcontextprotocol/sdk', 'zod', 'minisearch'],
  pgliteOnly: ['@electric-sql/pglite', '@types/node@20'],
  // The optional OpenTelemetry API, with an SDK to record what the queue reports.
  pgliteTelemetry: ['@electric-sql/pglite', '@opentelemetry/api', '@opentelemetry/sdk-trace-base'],
} as const;
type ConsumerName = keyof typeof CONSUMERS;

let tmp: string;
let tarball: string;
let packedFiles: string[];
const installs = {} as Record<ConsumerName, Run & { dir: string }>;

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'queuedev-consumer-'));
  const build = await run('npm', ['run', 'build'], ROOT);
  if (build.code !== 0) throw new Error(`npm run build failed\n${show(build)}`);
  // Scripts already ran above; --json prints the packed file list.
  const pack = await run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', tmp], ROOT);
  if (pack.code !== 0) throw new Error(`npm pack failed\n${show(pack)}`);
  const [info] = JSON.parse(pack.stdout) as { filename: string; files: { path: string }[] }[];
  tarball = join(tmp, info!.filename);
  packedFiles = info!.files.map((f) => f.path);

  await Promise.all(
    (Object.keys(CONSUMERS) as ConsumerName[]).map(async (name) => {
      const dir = join(tmp, name);
      mkdirSync(dir);
      writeFileSync(
        join(dir, 'package.json'),
        JSON.stringify({ name: `consumer-${name.toLowerCase()}`, private: true, type: 'module' }),
      );
      // No flags beyond the quiet ones: a peer conflict must fail the install.
      installs[name] = {
        dir,
        ...(await run('npm', ['install', '--no-audit', '--no-fund', tarball, ...CONSUMERS[name]], dir)),
      };
    }),
  );
}, 600_000);

afterAll(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

function consumer(name: ConsumerName): string {
  const install = installs[name];
  expect(install.code, show(install)).toBe(0);
  return install.dir;
}

describe('installing the packed tarball', () => {
  it('installs beside pg and ioredis@latest without flags', () => {
    const dir = consumer('bothLatest');
    const ioredis = JSON.parse(readFileSync(join(dir, 'node_modules/ioredis/package.json'), 'utf8')) as {
      version: string;
    };
    expect(Number(ioredis.version.split('.')[0])).toBeGreaterThanOrEqual(6);
  });

  it('installs beside ioredis 5', () => {
    const dir = consumer('redis5');
    expect(JSON.parse(readFileSync(join(dir, 'node_modules/ioredis/package.json'), 'utf8')).version).toMatch(/^5\./);
  });

  it('a PGlite-only install pulls in neither pg nor ioredis', () => {
    const dir = consumer('pgliteOnly');
    expect(existsSync(join(dir, 'node_modules/@electric-sql/pglite'))).toBe(true);
    expect(existsSync(join(dir, 'node_modules/pg'))).toBe(false);
    expect(existsSync(join(dir, 'node_modules/ioredis'))).toBe(false);
  });

  it('a Redis-only install does not pull in pg', () => {
    const dir = consumer('redisOnly');
    expect(existsSync(join(dir, 'node_modules/queuedev'))).toBe(true);
    expect(existsSync(join(dir, 'node_modules/pg'))).toBe(false);
  });
});

describe('running the bundled code', () => {
  const SCRIPT = `
import { initJobQueue } from 'queuedev';
const queue = initJobQueue({ backend: 'redis', redisConfig: { url: process.env.REDIS_URL, keyPrefix: process.env.PREFIX } });
try {
  const id = await queue.addJob({ jobType: 'double', payload: { n: 21 } });
  await queue.createProcessor({ double: async (p) => ({ doubled: p.n * 2 }) }).start();
  const job = await queue.getJob(id);
  console.log(JSON.stringify({ status: job.status, output: job.output }));
} finally {
  await queue.close();
}
`;
  const prefixes: string[] = [];

  afterAll(async () => {
    const redis = new Redis(REDIS_URL);
    for (const prefix of prefixes) {
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length > 0) await redis.del(...keys);
    }
    await redis.quit();
  });

  // The ESM and the CommonJS build each load PGlite only when a queue asks for it.
  for (const [file, script] of [
    ['run-pglite.mjs', `import { initJobQueue } from 'queuedev';`],
    ['run-pglite.cjs', `const { initJobQueue } = require('queuedev');`],
  ] as const) {
    it(`runs a job on an embedded PGlite with only @electric-sql/pglite installed (${file})`, async () => {
      const dir = consumer('pgliteOnly');
      const body = `
const queue = initJobQueue({ pglite: {}, migrate: true });
(async () => {
  try {
    const id = await queue.addJob({ jobType: 'double', payload: { n: 21 } });
    await queue.createProcessor({ double: async (p) => ({ doubled: p.n * 2 }) }).start();
    const job = await queue.getJob(id);
    console.log(JSON.stringify({ status: job.status, output: job.output }));
  } finally {
    await queue.close();
  }
})();
`;
      writeFileSync(join(dir, file), script + body);
      const result = await run(process.execPath, [file], dir);
      expect(result.code, show(result)).toBe(0);
      expect(JSON.parse(result.stdout)).toEqual({ status: 'completed', output: { doubled: 42 } });
    });
  }

  // Each build loads @opentelemetry/api where the project installed it.
  for (const [file, imports] of [
    [
      'run-telemetry.mjs',
      `import { initJobQueue } from 'queuedev';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';`,
    ],
    [
      'run-telemetry.cjs',
      `const { initJobQueue } = require('queuedev');
const { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } = require('@opentelemetry/sdk-trace-base');`,
    ],
  ] as const) {
    it(`links a job's run to its add with @opentelemetry/api installed (${file})`, async () => {
      const dir = consumer('pgliteTelemetry');
      const body = `
const exporter = new InMemorySpanExporter();
const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const queue = initJobQueue({ pglite: {}, migrate: true, telemetry: { tracerProvider } });
(async () => {
  try {
    await queue.addJob({ jobType: 'double', payload: { n: 21 } });
    await queue.createProcessor({ double: async (p) => ({ doubled: p.n * 2 }) }).start();
    const spans = exporter.getFinishedSpans();
    const add = spans.find((s) => s.name === 'add double');
    const run = spans.find((s) => s.name === 'process double');
    console.log(JSON.stringify({ linked: run.links[0].context.spanId === add.spanContext().spanId }));
  } finally {
    await queue.close();
  }
})();
`;
      writeFileSync(join(dir, file), `${imports}\n${body}`);
      const result = await run(process.execPath, [file], dir);
      expect(result.code, show(result)).toBe(0);
      expect(JSON.parse(result.stdout)).toEqual({ linked: true });
    });
  }

  for (const name of ['redisOnly', 'redis5'] as const) {
    it(`runs a job on Redis through redisConfig with the ioredis the project installed (${name})`, async () => {
      const dir = consumer(name);
      writeFileSync(join(dir, 'run.mjs'), SCRIPT);
      const prefix = `${uniqueName('qconsumer')}:`;
      prefixes.push(prefix);
      const result = await run(process.execPath, ['run.mjs'], dir, { REDIS_URL, PREFIX: prefix });
      expect(result.code, show(result)).toBe(0);
      expect(JSON.parse(result.stdout)).toEqual({ status: 'completed', output: { doubled: 42 } });
    });
  }
});

/**
 * The README's quick start, read from README.md: its install commands (the tarball in place of
 * `queuedev`), its program saved under the name each of its run commands gives, and those
 * commands, in a project `npm init -y` made (CommonJS) and in one set to `"type": "module"`.
 */
describe('the README quick start, pasted into a new project', { timeout: 300_000 }, () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(
    readme.indexOf('\n## Quick start\n'),
    readme.indexOf('\n## ', readme.indexOf('\n## Quick start\n') + 1),
  );
  const blocks = [...section.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map(([, lang, body]) => ({ lang, body: body! }));
  const commands = (body: string) =>
    body
      .split('\n')
      .map((line) => ({ command: line.replace(/\s+#.*$/, '').trim(), comment: /#\s*(.*)$/.exec(line)?.[1] ?? '' }))
      .filter((c) => c.command !== '');
  const install = commands(blocks.find((b) => b.lang === 'sh')!.body);
  const programAt = blocks.findIndex((b) => b.lang === 'ts');
  const program = blocks[programAt]!.body;
  // The commands that run it: the shell block right after it.
  const runs = commands(blocks.slice(programAt + 1).find((b) => b.lang === 'sh')!.body);
  const printed = /It prints `([^`]+)`/.exec(section)?.[1];
  const PROJECTS = { commonjs: 'CommonJS', module: '"type": "module"' } as const;
  const dirs = {} as Record<keyof typeof PROJECTS, string>;

  /** Runs `file` with the README's command, until it prints the line the README promises or ends. */
  function runUntilPrinted(command: string, dir: string): Promise<Run & { printed: boolean }> {
    const [bin, ...args] = command.split(/\s+/);
    const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.toLowerCase().startsWith('npm_')));
    return new Promise((resolve) => {
      // A group of its own: npx runs tsx, which runs node, and stopping the program stops them all.
      const child = spawn(bin!, args, { cwd: dir, env: clean, detached: true });
      const stop = () => {
        try {
          process.kill(-child.pid!, 'SIGTERM');
        } catch {
          // Ended already.
        }
      };
      let stdout = '';
      let stderr = '';
      let seen = false;
      const timer = setTimeout(stop, 120_000);
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        // The processor keeps polling for more jobs: stopped once the job ran.
        if (!seen && stdout.includes(printed!)) {
          seen = true;
          stop();
        }
      });
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code: code ?? 1, stdout, stderr, printed: seen });
      });
    });
  }

  beforeAll(async () => {
    await Promise.all(
      (Object.keys(PROJECTS) as (keyof typeof PROJECTS)[]).map(async (type) => {
        const dir = join(tmp, `quickstart-${type}`);
        mkdirSync(dir);
        const steps = [['npm', 'init', '-y'], ...(type === 'module' ? [['npm', 'pkg', 'set', 'type=module']] : [])];
        for (const { command } of install) {
          const [bin, ...args] = command.split(/\s+/);
          steps.push([bin!, ...args.map((a) => (a === 'queuedev' ? tarball : a)), '--no-audit', '--no-fund']);
        }
        for (const [bin, ...args] of steps) {
          const result = await run(bin!, args, dir);
          if (result.code !== 0) throw new Error(`${[bin, ...args].join(' ')} failed\n${show(result)}`);
        }
        dirs[type] = dir;
      }),
    );
  }, 600_000);

  it('installs with the README commands and names the output, and a run command for each kind of project', () => {
    expect(install.map((c) => c.command)).toContain('npm install queuedev @electric-sql/pglite');
    expect(printed).toBeDefined();
    for (const label of Object.values(PROJECTS)) {
      expect(runs.filter((r) => r.comment === label)).toHaveLength(1);
    }
  });

  for (const [type, label] of Object.entries(PROJECTS) as [keyof typeof PROJECTS, string][]) {
    it(`runs its job as pasted in a ${label} project`, async () => {
      const { command } = runs.find((r) => r.comment === label)!;
      const file = command.split(/\s+/).at(-1)!;
      writeFileSync(join(dirs[type], file), program);
      const result = await runUntilPrinted(command, dirs[type]);
      expect(result.printed, show(result)).toBe(true);
      expect(result.stderr, show(result)).toBe('');
    });
  }

  it('needs the ES module the README asks for: as a .ts file of a CommonJS project it fails', async () => {
    writeFileSync(join(dirs.commonjs, 'queue.ts'), program);
    const result = await runUntilPrinted('npx tsx queue.ts', dirs.commonjs);
    expect(result.printed).toBe(false);
    expect(result.stderr).toMatch(/Top-level await is currently not supported with the "cjs" output format/);
  });
});

// A type check of a whole project takes a while on a busy machine.
describe('type-checking a strict project against the published declarations', { timeout: 180_000 }, () => {
  const RESOLUTIONS = {
    node16: { module: 'node16', moduleResolution: 'node16' },
    nodenext: { module: 'nodenext', moduleResolution: 'nodenext' },
    bundler: { module: 'esnext', moduleResolution: 'bundler' },
  } as const;

  const SOURCES = {
    pgOnly: `
import pg from 'pg';
import { initJobQueue, type JobQueue } from 'queuedev';
import { createQueueDashboard } from 'queuedev/dashboard';
type Payloads = { hello: { n: number } };
const queue: JobQueue<Payloads> = initJobQueue<Payloads>({ pool: new pg.Pool({ connectionString: 'postgres://localhost/app' }) });
void queue.addJob({ jobType: 'hello', payload: { n: 1 } });
// @ts-expect-error the payload is typed
void queue.addJob({ jobType: 'hello', payload: { n: 'one' } });
const pool = queue.getPool() as pg.Pool;
export const dashboard = createQueueDashboard<Payloads>({ jobQueue: queue, jobHandlers: { hello: async () => {} }, basePath: '/admin/jobs' });
export const total: number = pool.totalCount;
`,
    redisOnly: `
import { Cluster, Redis } from 'ioredis';
import { initJobQueue } from 'queuedev';
import { createQueueDashboard } from 'queuedev/dashboard';
const queue = initJobQueue({ backend: 'redis', client: new Redis() });
initJobQueue({ backend: 'redis', client: new Cluster([]) });
export const dashboard = createQueueDashboard({ jobQueue: queue, jobHandlers: {}, basePath: '/admin/jobs' });
export const status: string = (queue.getRedisClient() as Redis).status;
`,
    // PGlite's own declarations do not pass skipLibCheck: false (they name Emscripten types they
    // do not ship), so this project reaches an instance through queuedev's structural type only.
    pgliteOnly: `
import { initJobQueue, migrate, type PGliteInstance } from 'queuedev';
declare const db: PGliteInstance;
await migrate({ pglite: db });
const queue = initJobQueue({ pglite: db, schema: 'public' });
await db.transaction((tx) => queue.addJob({ jobType: 'a', payload: {} }, { db: tx }));
initJobQueue({ pglite: { dataDir: './data' }, migrate: true });
`,
  };
  // CommonJS files of the same project resolve the require conditions (.d.cts).
  const CJS = `
import queuedev = require('queuedev');
import dashboard = require('queuedev/dashboard');
export const init: typeof queuedev.initJobQueue = queuedev.initJobQueue;
export const create: typeof dashboard.createQueueDashboard = dashboard.createQueueDashboard;
`;

  const DRIVER = { pgOnly: 'pg', redisOnly: 'ioredis', pgliteOnly: '@electric-sql/pglite' } as const;
  for (const name of ['pgOnly', 'redisOnly', 'pgliteOnly'] as const) {
    for (const [resolution, options] of Object.entries(RESOLUTIONS)) {
      it(`type-checks with skipLibCheck: false and only ${DRIVER[name]} installed (${resolution})`, async () => {
        const dir = consumer(name);
        writeFileSync(join(dir, 'check.ts'), SOURCES[name]);
        const files = ['check.ts'];
        if (resolution !== 'bundler') {
          writeFileSync(join(dir, 'check-cjs.cts'), CJS);
          files.push('check-cjs.cts');
        }
        const config = {
          compilerOptions: {
            ...options,
            target: 'es2022',
            strict: true,
            skipLibCheck: false,
            noEmit: true,
            types: ['node'],
          },
          files,
        };
        writeFileSync(join(dir, `tsconfig.${resolution}.json`), JSON.stringify(config));
        const result = await run(
          process.execPath,
          [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', `tsconfig.${resolution}.json`],
          dir,
        );
        expect(result.code, show(result)).toBe(0);
      });
    }
  }
});

describe('the installed queue-cli', () => {
  const schema = uniqueName('qconsumer_cli');

  afterAll(async () => {
    const pool = new pg.Pool({ connectionString: PG_URL, max: 1 });
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pool.end();
  });

  it('prints the package version', async () => {
    const result = await run(
      join(consumer('pgOnly'), 'node_modules/.bin/queue-cli'),
      ['--version'],
      consumer('pgOnly'),
    );
    expect(result.code, show(result)).toBe(0);
    expect(result.stdout).toBe(`${pkg.version}\n`);
  });

  it('applies the shipped migrations', async () => {
    const dir = consumer('pgOnly');
    const result = await run(join(dir, 'node_modules/.bin/queue-cli'), ['migrate', '--schema', schema], dir, {
      PG_QUEUE_DATABASE: PG_URL,
    });
    expect(result.code, show(result)).toBe(0);
    expect(result.stdout).toContain('Applied 002_cron_and_waits');
  });

  it('reports a failed connection in one line', async () => {
    const dir = consumer('pgOnly');
    const result = await run(join(dir, 'node_modules/.bin/queue-cli'), ['migrate'], dir, {
      PG_QUEUE_DATABASE: 'postgres://app@127.0.0.1:6461/app',
    });
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n'), show(result)).toHaveLength(1);
    expect(result.stderr).toContain('cannot connect to PostgreSQL at 127.0.0.1:6461/app (ECONNREFUSED)');
  });
});

describe('the installed queue-cli documentation server and assistant files', () => {
  for (const build of ['index.js', 'index.cjs']) {
    it(`serves the shipped docs over stdio from the ${build === 'index.js' ? 'ESM' : 'CommonJS'} build`, async () => {
      const dir = consumer('mcp');
      const client = new Client({ name: 'consumer-test', version: '1.0.0' });
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [join(dir, 'node_modules/queuedev/dist/cli', build), 'mcp'],
          cwd: dir,
          env: { PATH: process.env.PATH ?? '' },
        }),
      );
      try {
        const list = await client.callTool({ name: 'list-doc-pages', arguments: {} });
        const names = (list.structuredContent as { pages: { name: string }[] }).pages.map((p) => p.name);
        expect(names).toEqual(
          packedFiles
            .filter((f) => /^docs\/[^/]+\.md$/.test(f))
            .map((f) => f.slice(5, -3))
            .sort(),
        );
        const search = await client.callTool({ name: 'search-docs', arguments: { query: 'migrate schema' } });
        expect((search.structuredContent as { results: unknown[] }).results).toHaveLength(5);
      } finally {
        await client.close();
      }
    });
  }

  it('tells in one line which packages the server needs when the project lacks them', async () => {
    const dir = consumer('pgOnly');
    const result = await run(join(dir, 'node_modules/.bin/queue-cli'), ['mcp'], dir);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'queue-cli mcp: the documentation server needs @modelcontextprotocol/sdk, zod, minisearch in the project: run npm install --save-dev @modelcontextprotocol/sdk zod minisearch\n',
    );
    expect(result.stdout).toBe('');
  });

  it('installs the shipped skills and rules', async () => {
    const dir = consumer('redisOnly');
    const skills = await run(join(dir, 'node_modules/.bin/queue-cli'), ['install-skills'], dir);
    expect(skills.code, show(skills)).toBe(0);
    expect(readFileSync(join(dir, '.claude/skills/queuedev-usage/SKILL.md'), 'utf8')).toMatch(
      /^---\nname: queuedev-usage\n/,
    );
    const rules = await run(join(dir, 'node_modules/.bin/queue-cli'), ['install-rules', '--client', 'all'], dir);
    expect(rules.code, show(rules)).toBe(0);
    expect(readFileSync(join(dir, 'AGENTS.md'), 'utf8')).toContain('## queuedev (background jobs)');
  });
});

describe('the tarball', { timeout: 120_000 }, () => {
  it('ships the assistant skills and rules', () => {
    expect(packedFiles.filter((f) => f.startsWith('assistants/')).sort()).toEqual([
      'assistants/rules/queuedev.md',
      'assistants/skills/queuedev-deployment/SKILL.md',
      'assistants/skills/queuedev-handlers/SKILL.md',
      'assistants/skills/queuedev-troubleshooting/SKILL.md',
      'assistants/skills/queuedev-usage/SKILL.md',
    ]);
  });

  it('names the repository, the home page and where to report bugs', () => {
    expect(pkg.repository).toEqual({ type: 'git', url: 'git+https://github.com/queuedev/queuedev.git' });
    expect(pkg.homepage).toBe('https://github.com/queuedev/queuedev#readme');
    expect(pkg.bugs).toEqual({ url: 'https://github.com/queuedev/queuedev/issues' });
  });

  it('ships the CLI without type declarations', () => {
    expect(packedFiles).toContain('dist/cli/index.js');
    expect(packedFiles.filter((f) => f.startsWith('dist/cli/') && /\.d\.c?ts$/.test(f))).toEqual([]);
  });

  it('every relative link of the README and the docs points at a file it ships', () => {
    const pages = packedFiles.filter((f) => f === 'README.md' || /^docs\/.*\.md$/.test(f));
    expect(pages).toContain('README.md');
    const broken: string[] = [];
    for (const page of pages) {
      const text = readFileSync(join(ROOT, page), 'utf8');
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
        if (/^([a-z][a-z0-9+.-]*:|#)/i.test(target!)) continue; // absolute URLs and anchors
        const path = posix.normalize(posix.join(dirname(page), decodeURI(target!.split('#')[0]!)));
        if (!packedFiles.includes(path)) broken.push(`${page}: ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('passes attw (every import path resolves to types for node10, node16 and bundlers)', async () => {
    const result = await run(BIN('attw'), [tarball, '--format', 'ascii'], tmp);
    expect(result.code, show(result)).toBe(0);
  });

  it('passes publint', async () => {
    const result = await run(BIN('publint'), ['run', tarball, '--strict'], tmp);
    expect(result.code, show(result)).toBe(0);
  });
});
