/**
 * `queue-cli init` in temp projects, one per framework: detection from package.json, the files
 * it writes, never overwriting one, --dry-run, the env entries, and each scaffold's printed next
 * steps run as printed: the scaffold and the printed code type-check under node16 resolution and
 * the strictest common settings, `npx queue-cli migrate` migrates a database of the test's own,
 * the printed routes are mounted (and their cron and dashboard guards probed), the printed job is
 * added, and the worker started with the printed command (for Next.js, the scheduled processing
 * route) runs it and prints what the handler logged.
 *
 * The install step is the fixture package in init-frameworks/ (the frameworks and tsx, with its
 * own package.json and lock, installed here when missing or out of date), so the root install
 * stays lean; queuedev resolves through `paths` to this tree's source at run time (tsx reads
 * them) and, for `tsc`, to declarations emitted from it (run-cli.ts); `queue-cli` in the
 * project's node_modules/.bin runs this tree's CLI. Next.js route handlers use only the standard
 * Request and Response types, so that project needs no Next.js package.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initJobQueue } from '../../src/index.js';
import { PG_URL, uniqueName } from '../helpers/backends.js';
import { cli, CLI, emitQueuedevTypes, ROOT, show, tempProject, TSX, typeCheck, type QueuedevTypes } from './run-cli.js';

const FIXTURE = join(ROOT, 'test/cli/init-frameworks');
/** The scaffold's tsconfig for `tsc`, with queuedev's declarations. */
const CHECK_CONFIG = 'tsconfig.check.json';
const run = promisify(execFile);

/** Whether the fixture's node_modules holds every package of its lock, at the locked version. */
function fixtureInstalled(): boolean {
  type Lock = { packages: Record<string, { version?: string; optional?: boolean }> };
  const installed = join(FIXTURE, 'node_modules/.package-lock.json');
  if (!existsSync(installed)) return false;
  const have = (JSON.parse(readFileSync(installed, 'utf8')) as Lock).packages;
  const want = (JSON.parse(readFileSync(join(FIXTURE, 'package-lock.json'), 'utf8')) as Lock).packages;
  // Optional packages are those of other platforms (esbuild's binaries): not installed here.
  return Object.entries(want).every(([path, p]) => path === '' || p.optional || have[path]?.version === p.version);
}

let types: QueuedevTypes;
beforeAll(async () => {
  if (!fixtureInstalled()) await run('npm', ['install', '--no-audit', '--no-fund'], { cwd: FIXTURE });
  types = await emitQueuedevTypes();
}, 300_000);

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  types.remove();
});

type Framework = 'next' | 'express' | 'hono' | 'fastify' | 'node';

/** The strictest common settings (those of @tsconfig/strictest) that the scaffold is held to. */
const STRICTEST = (
  JSON.parse(readFileSync(createRequire(import.meta.url).resolve('@tsconfig/strictest/tsconfig.json'), 'utf8')) as {
    compilerOptions: Record<string, boolean>;
  }
).compilerOptions;

/**
 * The project's node_modules: the fixture's packages (the install step's stand-in), and in .bin
 * their commands and \`queue-cli\`, which runs this tree's CLI, as the installed package's does.
 */
function linkPackages(dir: string): void {
  const modules = join(dir, 'node_modules');
  const bin = join(modules, '.bin');
  mkdirSync(bin, { recursive: true });
  const fixture = join(FIXTURE, 'node_modules');
  for (const name of readdirSync(fixture)) {
    if (name !== '.bin') symlinkSync(join(fixture, name), join(modules, name));
  }
  for (const name of readdirSync(join(fixture, '.bin'))) symlinkSync(join(fixture, '.bin', name), join(bin, name));
  const quote = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;
  writeFileSync(
    join(bin, 'queue-cli'),
    `#!/bin/sh\nexec ${quote(process.execPath)} --import ${quote(TSX)} ${quote(CLI)} "$@"\n`,
  );
  chmodSync(join(bin, 'queue-cli'), 0o755);
}

/** A project depending on `framework`, with the fixture's packages and a tsconfig like the framework's starters. */
function project(framework: Framework, options: { src?: boolean } = {}): string {
  const dir = tempProject(`init-${framework}`);
  dirs.push(dir);
  const dependencies = framework === 'node' ? { dotenv: '^16.0.0' } : { [framework]: '*' };
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({
      name: `app-${framework}`,
      private: true,
      ...(framework === 'next' ? {} : { type: 'module' }),
      dependencies,
    }),
  );
  linkPackages(dir);
  if (options.src) mkdirSync(join(dir, 'src'));
  if (framework === 'next') mkdirSync(join(dir, options.src ? 'src/app' : 'app'), { recursive: true });
  const compilerOptions =
    framework === 'next'
      ? { module: 'esnext', moduleResolution: 'bundler', lib: ['dom', 'dom.iterable', 'esnext'] }
      : { module: 'node16', moduleResolution: 'node16', lib: ['es2023'] };
  // create-next-app's import alias.
  const alias = framework === 'next' ? { '@/*': [options.src ? './src/*' : './*'] } : {};
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        ...STRICTEST,
        ...compilerOptions,
        target: 'es2022',
        noEmit: true,
        types: ['node'],
        paths: {
          ...alias,
          queuedev: [join(ROOT, 'src/index.ts')],
          'queuedev/dashboard': [join(ROOT, 'src/dashboard/index.ts')],
        },
      },
      include: ['**/*.ts'],
      exclude: ['node_modules'],
    }),
  );
  // tsx runs the scaffold from the source above; tsc checks it against the declarations.
  writeFileSync(
    join(dir, CHECK_CONFIG),
    JSON.stringify({
      extends: './tsconfig.json',
      compilerOptions: {
        paths: { ...alias, queuedev: [types.index], 'queuedev/dashboard': [types.dashboard] },
      },
    }),
  );
  return dir;
}

const EXPECTED: Record<Framework, string[]> = {
  next: [
    'lib/queue/payloads.ts',
    'lib/queue/queue.ts',
    'lib/queue/handlers.ts',
    'lib/queue/auth.ts',
    'lib/queue/dashboard.ts',
    'lib/queue/maintenance.ts',
    'app/api/queue/process/route.ts',
    'app/api/queue/cron/route.ts',
    'app/admin/jobs/[[...path]]/route.ts',
  ],
  ...Object.fromEntries(
    (['express', 'hono', 'fastify', 'node'] as const).map((f) => [
      f,
      [
        ...['payloads', 'queue', 'handlers', 'auth', 'dashboard', 'maintenance', 'worker'].map((n) => `queue/${n}.ts`),
        f === 'node' ? 'queue/http.ts' : 'queue/routes.ts',
      ],
    ]),
  ),
} as Record<Framework, string[]>;

describe('queue-cli init', { timeout: 180_000 }, () => {
  it.each(['next', 'express', 'hono', 'fastify', 'node'] as const)(
    'detects %s from package.json and writes its scaffold',
    async (framework) => {
      const dir = project(framework);
      const result = await cli(['init'], dir);
      expect(result.code, show(result)).toBe(0);
      expect(result.stdout).toContain(`queuedev for ${framework} on postgres`);
      for (const file of EXPECTED[framework]) {
        expect(result.stdout).toContain(`  created: ${file}\n`);
        expect(existsSync(join(dir, file)), file).toBe(true);
      }
      expect(result.stdout).toContain('  created: .env.example');
      expect(result.stdout.includes("serverExternalPackages: ['queuedev']")).toBe(framework === 'next');
    },
  );

  it('a scaffold that does not type-check fails the check (the check is real)', async () => {
    const dir = project('hono');
    await cli(['init'], dir);
    const routes = join(dir, 'queue/routes.ts');
    writeFileSync(routes, readFileSync(routes, 'utf8').replace("c.req.header('authorization')", 'c.req.header(42)'));
    const checked = await typeCheck(join(dir, CHECK_CONFIG));
    expect(checked.code).not.toBe(0);
    expect(checked.output).toContain('queue/routes.ts');
  });

  it('writes into src/ and src/app/ when the project has them, and on Redis with --backend redis', async () => {
    const next = project('next', { src: true });
    const result = await cli(['init', '--backend', 'redis'], next);
    expect(result.code, show(result)).toBe(0);
    expect(existsSync(join(next, 'src/lib/queue/queue.ts'))).toBe(true);
    expect(existsSync(join(next, 'src/app/api/queue/cron/route.ts'))).toBe(true);
    expect(readFileSync(join(next, 'src/lib/queue/queue.ts'), 'utf8')).toContain(
      "{ backend: 'redis', redisConfig: { url: process.env['REDIS_URL'] } }",
    );
    expect(readFileSync(join(next, '.env.example'), 'utf8')).toContain('REDIS_URL=');
    const fastify = project('fastify', { src: true });
    expect((await cli(['init', '--backend', 'redis'], fastify)).code).toBe(0);
    expect(existsSync(join(fastify, 'src/queue/routes.ts'))).toBe(true);
    // The Redis queue module type-checks (the PostgreSQL scaffolds are checked as they run, below).
    const checked = await typeCheck(join(fastify, CHECK_CONFIG));
    expect(checked.code, checked.output).toBe(0);
  });

  it('never overwrites a file: a second run and an existing file are left as they are', async () => {
    const dir = project('express');
    mkdirSync(join(dir, 'queue'));
    writeFileSync(join(dir, 'queue/queue.ts'), '// ours\n');
    writeFileSync(join(dir, '.env.example'), 'PORT=3000\nCRON_SECRET=abc\n');
    const first = await cli(['init'], dir);
    expect(first.code, show(first)).toBe(0);
    expect(first.stdout).toContain('  exists, left as it is: queue/queue.ts\n');
    expect(readFileSync(join(dir, 'queue/queue.ts'), 'utf8')).toBe('// ours\n');
    expect(first.stdout).toContain('  added PG_QUEUE_DATABASE, QUEUE_DASHBOARD_PASSWORD to: .env.example');
    expect(readFileSync(join(dir, '.env.example'), 'utf8')).toBe(
      'PORT=3000\nCRON_SECRET=abc\n\n# queuedev\nPG_QUEUE_DATABASE=postgres://user:password@localhost:5432/app\nQUEUE_DASHBOARD_PASSWORD=\n',
    );
    const snapshot = EXPECTED.express.map((f) => readFileSync(join(dir, f), 'utf8'));
    const second = await cli(['init'], dir);
    expect(second.code).toBe(0);
    expect(second.stdout).not.toContain('created');
    for (const file of EXPECTED.express) expect(second.stdout).toContain(`  exists, left as it is: ${file}\n`);
    expect(EXPECTED.express.map((f) => readFileSync(join(dir, f), 'utf8'))).toEqual(snapshot);
  });

  it('--dry-run prints the plan and writes nothing; --framework overrides detection', async () => {
    const dir = project('express');
    const result = await cli(['init', '--dry-run', '--framework', 'hono'], dir);
    expect(result.code, show(result)).toBe(0);
    expect(result.stdout).toContain('dry run: queuedev for hono on postgres');
    expect(result.stdout).toContain('  would create: queue/routes.ts');
    expect(result.stdout).toContain('  would create: .env.example');
    expect(existsSync(join(dir, 'queue'))).toBe(false);
    expect(existsSync(join(dir, '.env.example'))).toBe(false);
  });

  it('leaves out the tsx install when the project has tsx, and prints the Redis driver on Redis', async () => {
    const dir = project('hono');
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Record<string, unknown>;
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ ...manifest, devDependencies: { tsx: '^4.0.0' } }));
    const result = await cli(['init', '--dry-run', '--backend', 'redis'], dir);
    expect(result.code, show(result)).toBe(0);
    expect(parseSteps(result.stdout)[0]).toEqual({
      text: 'install queuedev and ioredis:',
      code: ['npm install queuedev ioredis'],
    });
    expect(result.stdout).not.toContain('queue-cli migrate');
  });

  it.each(['next', 'express', 'hono', 'fastify', 'node'] as const)(
    'the %s scaffold works on first run: each printed step, run as printed, and the first job completes',
    async (framework) => {
      // Two of them in the src/ layout (src/queue/, src/app/ and src/lib/queue/).
      const src = framework === 'next' || framework === 'fastify';
      const dir = project(framework, { src });
      const result = await cli(['init'], dir);
      expect(result.code, show(result)).toBe(0);
      const steps = parseSteps(result.stdout);
      const worker = framework !== 'next';

      // 1. The install: the fixture holds what it names besides queuedev and the driver.
      expect(steps[0]!.code).toEqual(['npm install queuedev pg', ...(worker ? ['npm install --save-dev tsx'] : [])]);
      expect(existsSync(join(FIXTURE, 'node_modules/tsx'))).toBe(true);
      // 2. The variables.
      expect(steps[1]!.text).toContain('set PG_QUEUE_DATABASE, CRON_SECRET and QUEUE_DASHBOARD_PASSWORD');
      const database = await createDatabase();
      const env = {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? dir,
        PG_QUEUE_DATABASE: database.url,
        CRON_SECRET: 'right',
        QUEUE_DASHBOARD_PASSWORD: 'pw',
      };
      const workerRun: { stdout: string; child?: ChildProcess } = { stdout: '' };
      try {
        // The rest: code goes into a server file beside queue/, and commands run in a shell as printed.
        const code = { imports: [] as string[], mount: [] as string[], addJob: [] as string[] };
        const commands: string[] = [];
        for (const { code: lines = [] } of steps.slice(2)) {
          if (lines[0]?.startsWith('npx ')) {
            expect(lines, 'one command to a step').toHaveLength(1);
            commands.push(lines[0]);
            continue;
          }
          const body = lines.filter((line) => !line.startsWith('import '));
          code.imports.push(...lines.filter((line) => line.startsWith('import ')));
          (body.some((line) => line.includes('queue.addJob(')) ? code.addJob : code.mount).push(...body);
        }
        expect(code.mount.length > 0).toBe(worker);
        expect(code.addJob).toHaveLength(1);
        // Beside the queue folder, where the printed imports are written from.
        const server = src ? 'src/server.ts' : 'server.ts';
        writeFileSync(join(dir, server), serverFile(framework, code));
        // The scaffold and the printed code type-check together (checked below, run meanwhile).
        const checking = typeCheck(join(dir, CHECK_CONFIG));

        for (const command of commands) {
          if (command.startsWith('npx tsx ')) {
            workerRun.child = startWorker(command, dir, env, (chunk) => (workerRun.stdout += chunk));
            continue;
          }
          const ran = await shell(command, dir, env);
          expect(ran.code, `${command}\n${ran.output}`).toBe(0);
        }
        expect(workerRun.child !== undefined, 'a printed worker command').toBe(worker);

        const served = await shell(`"${process.execPath}" --import "${TSX}" ${server}`, dir, env);
        expect(served.code, served.output).toBe(0);
        const probe = served.output.split('\n').find((line) => line.startsWith('{'));
        expect(JSON.parse(probe ?? 'null'), served.output).toEqual({
          cronWithout: 401,
          cronWrong: 401,
          cronRight: 200,
          dashboardWithout: 401,
          dashboardWrong: 401,
          dashboardPage: 200,
          dashboardApi: 200,
          dashboardPost: 404,
        });

        // What the handler logged, printed by the worker (by the processing route on Next.js).
        const logged = 'email.send: would send "Hello" to you@example.com';
        if (worker)
          await waitFor(
            () => workerRun.stdout.includes(logged),
            () => workerRun.stdout,
          );
        else expect(served.output).toContain(logged);
        const queue = initJobQueue({ databaseConfig: { connectionString: database.url } });
        try {
          await waitFor(
            async () => (await queue.getJobs()).every((job) => job.status === 'completed'),
            async () => JSON.stringify(await queue.getJobs()),
          );
          const jobs = await queue.getJobs();
          expect(jobs.map((job) => [job.jobType, job.status])).toEqual([['email.send', 'completed']]);
        } finally {
          await queue.close();
        }
        const checked = await checking;
        expect(checked.code, checked.output).toBe(0);
      } finally {
        if (workerRun.child) await stopWorker(workerRun.child);
        await database.drop();
      }
    },
  );
});

interface Step {
  text: string;
  code?: string[];
}

/** The printed next steps: each numbered line, and the code lines indented under it. */
function parseSteps(stdout: string): Step[] {
  const steps: Step[] = [];
  for (const line of stdout.slice(stdout.indexOf('\nNext steps:\n')).split('\n').slice(2)) {
    const numbered = /^ {2}\d+\. (.*)$/.exec(line);
    if (numbered) steps.push({ text: numbered[1]! });
    else if (line.startsWith('       ')) (steps.at(-1)!.code ??= []).push(line.slice(7));
  }
  return steps;
}

/** A database of the test's own, dropped afterwards with every connection to it. */
async function createDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = uniqueName('queuedev_init');
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(PG_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: PG_URL });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

function shell(command: string, cwd: string, env: Record<string, string>): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile('/bin/sh', ['-c', command], { cwd, env }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, output: `${stdout}${stderr}` });
    });
  });
}

/** Starts the long-running worker command in a process group of its own, so stopping it reaches tsx's child too. */
function startWorker(command: string, cwd: string, env: Record<string, string>, onOutput: (chunk: string) => void) {
  const child = spawn('/bin/sh', ['-c', command], { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.on('data', (d: Buffer) => onOutput(d.toString()));
  child.stderr.on('data', (d: Buffer) => onOutput(d.toString()));
  return child;
}

/** SIGTERM to the worker's process group (the worker closes its queue on it), SIGKILL after 10 s. */
async function stopWorker(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  process.kill(-child.pid!, 'SIGTERM');
  const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

async function waitFor(done: () => boolean | Promise<boolean>, state: () => string | Promise<string>): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`timed out; the state:\n${await state()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * The server file of the run: the framework's app with the printed imports, the printed mount
 * lines and the printed addJob line in place, then a probe of the cron route's and the
 * dashboard's guards. Its body runs in an async function, which a CommonJS project (Next.js here)
 * needs for `await`.
 */
function serverFile(framework: Framework, code: { imports: string[]; mount: string[]; addJob: string[] }): string {
  const imports = [...new Set(code.imports)].join('\n');
  const mount = code.mount.join('\n');
  const fetchStatus = `const base = 'http://127.0.0.1:' + (server.address() as AddressInfo).port;
  const status: Status = async (method, path, headers) => (await fetch(base + path, { method, headers })).status;`;
  const listen = `await new Promise((resolve) => server.once('listening', resolve));`;
  const setup: Record<Framework, { head: string; app: string }> = {
    next: {
      head: `import * as admin from './app/admin/jobs/[[...path]]/route';
import * as cron from './app/api/queue/cron/route';
import * as processing from './app/api/queue/process/route';`,
      app: `const status: Status = (method, path, headers) => {
    const route = path.startsWith('/admin/jobs') ? admin : cron;
    const handle = method === 'GET' ? route.GET : route.POST;
    return handle(new Request('http://localhost' + path, { method, headers })).then((r) => r.status);
  };`,
    },
    express: {
      head: `import express from 'express';
import type { AddressInfo } from 'node:net';`,
      app: `const app = express();
  ${mount}
  const server = app.listen(0, '127.0.0.1');
  ${listen}
  ${fetchStatus}`,
    },
    hono: {
      head: `import { Hono } from 'hono';`,
      app: `const app = new Hono();
  ${mount}
  const status: Status = async (method, path, headers) => (await app.request(path, { method, headers })).status;`,
    },
    fastify: {
      head: `import Fastify from 'fastify';`,
      app: `const app = Fastify();
  ${mount}
  const status: Status = async (method, url, headers) => (await app.inject({ method, url, headers })).statusCode;`,
    },
    node: {
      head: `import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';`,
      app: `const server = createServer(async (req, res) => {
    ${mount}
    res.writeHead(404).end();
  }).listen(0, '127.0.0.1');
  ${listen}
  ${fetchStatus}`,
    },
  };
  // The scheduler's call of the processing route (Next.js): the bearer CRON_SECRET.
  const scheduled =
    framework === 'next'
      ? `const processed = await processing.GET(
    new Request('http://localhost/api/queue/process', { headers: { authorization: 'Bearer ' + process.env['CRON_SECRET'] } }),
  );
  if (processed.status !== 200) throw new Error('the processing route answered ' + processed.status);`
      : '';
  return `${setup[framework].head}
${imports}

type Status = (method: 'GET' | 'POST', path: string, headers: Record<string, string>) => Promise<number>;

async function main(): Promise<void> {
  ${setup[framework].app}
  ${code.addJob.join('\n')}
  ${scheduled}
  const basic = (password: string) => ({ authorization: 'Basic ' + Buffer.from('admin:' + password).toString('base64') });
  console.log(JSON.stringify({
    cronWithout: await status('GET', '/api/queue/cron', {}),
    cronWrong: await status('POST', '/api/queue/cron', { authorization: 'Bearer wrong' }),
    cronRight: await status('POST', '/api/queue/cron', { authorization: 'Bearer right' }),
    dashboardWithout: await status('GET', '/admin/jobs', {}),
    dashboardWrong: await status('GET', '/admin/jobs', basic('wrong')),
    dashboardPage: await status('GET', '/admin/jobs', basic('pw')),
    dashboardApi: await status('GET', '/admin/jobs/api/jobs?status=pending', basic('pw')),
    dashboardPost: await status('POST', '/admin/jobs/api/jobs/999999/retry', basic('pw')),
  }));
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
`;
}
