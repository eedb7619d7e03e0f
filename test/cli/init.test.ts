/**
 * `queue-cli init` in temp projects, one per framework: detection from package.json, the files
 * it writes, never overwriting one, --dry-run, the env entries, a `tsc` run over each scaffold,
 * and each scaffold served (through tsx) against Redis to check its cron and dashboard guards.
 * The framework packages come from the fixture package in init-frameworks/ (its own
 * package.json and lock, installed here when missing), so the root install stays lean; for
 * `tsc`, queuedev resolves through `paths` to declarations emitted from this tree's source
 * (run-cli.ts). Next.js route handlers use only the standard Request and Response types, so that
 * project needs no Next.js package.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDIS_URL } from '../helpers/backends.js';
import { cli, emitQueuedevTypes, ROOT, show, tempProject, typeCheck, type QueuedevTypes } from './run-cli.js';

const FIXTURE = join(ROOT, 'test/cli/init-frameworks');
/** The scaffold's tsconfig for `tsc`, with queuedev's declarations. */
const CHECK_CONFIG = 'tsconfig.check.json';
const run = promisify(execFile);

let types: QueuedevTypes;
beforeAll(async () => {
  if (!existsSync(join(FIXTURE, 'node_modules'))) {
    await run('npm', ['install', '--no-audit', '--no-fund'], { cwd: FIXTURE });
  }
  types = await emitQueuedevTypes();
}, 300_000);

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  types.remove();
});

type Framework = 'next' | 'express' | 'hono' | 'fastify' | 'node';

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
  symlinkSync(join(FIXTURE, 'node_modules'), join(dir, 'node_modules'), 'dir');
  if (options.src) mkdirSync(join(dir, 'src'));
  if (framework === 'next') mkdirSync(join(dir, options.src ? 'src/app' : 'app'), { recursive: true });
  const compilerOptions =
    framework === 'next'
      ? { module: 'esnext', moduleResolution: 'bundler', lib: ['dom', 'dom.iterable', 'esnext'] }
      : { module: 'nodenext', moduleResolution: 'nodenext', lib: ['es2023'] };
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        ...compilerOptions,
        target: 'es2022',
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        isolatedModules: true,
        types: ['node'],
        paths: {
          queuedev: [join(ROOT, 'src/index.ts')],
          'queuedev/dashboard': [join(ROOT, 'src/dashboard/index.ts')],
        },
      },
      include: ['**/*.ts'],
      exclude: ['node_modules'],
    }),
  );
  // tsx serves the scaffold from the source above; tsc checks it against the declarations.
  writeFileSync(
    join(dir, CHECK_CONFIG),
    JSON.stringify({
      extends: './tsconfig.json',
      compilerOptions: { paths: { queuedev: [types.index], 'queuedev/dashboard': [types.dashboard] } },
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
    'detects %s from package.json, writes its scaffold, and the scaffold type-checks',
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
      expect(result.stdout).toContain('Next steps:\n  1. npm install queuedev pg\n');
      expect(result.stdout.includes("serverExternalPackages: ['queuedev']")).toBe(framework === 'next');
      const checked = await typeCheck(join(dir, CHECK_CONFIG));
      expect(checked.code, checked.output).toBe(0);
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
      "{ backend: 'redis', redisConfig: { url: process.env.REDIS_URL } }",
    );
    expect(readFileSync(join(next, '.env.example'), 'utf8')).toContain('REDIS_URL=');
    const fastify = project('fastify', { src: true });
    expect((await cli(['init', '--backend', 'redis'], fastify)).code).toBe(0);
    expect(existsSync(join(fastify, 'src/queue/routes.ts'))).toBe(true);
    for (const dir of [next, fastify]) {
      const checked = await typeCheck(join(dir, CHECK_CONFIG));
      expect(checked.code, checked.output).toBe(0);
    }
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

  // Per framework: how the probe gets a status for (method, path, authorization) from the scaffold.
  const SERVE: Record<Framework, { imports: string; status: string }> = {
    next: {
      imports: `import * as cron from './app/api/queue/cron/route';
import * as admin from './app/admin/jobs/[[...path]]/route';`,
      status: `(method, path, headers) => {
  const route = path.startsWith('/admin/jobs') ? admin : cron;
  const handle = method === 'GET' ? route.GET : route.POST;
  return handle(new Request('http://localhost' + path, { method, headers })).then((r) => r.status);
}`,
    },
    hono: {
      imports: `import { queueRoutes } from './queue/routes.js';`,
      status: `async (method, path, headers) => (await queueRoutes.request(path, { method, headers })).status`,
    },
    express: {
      imports: `import express from 'express';
import type { AddressInfo } from 'node:net';
import { queueRoutes } from './queue/routes.js';
const app = express();
app.use(queueRoutes);
const server = app.listen(0, '127.0.0.1');
await new Promise((resolve) => server.once('listening', resolve));
const base = 'http://127.0.0.1:' + (server.address() as AddressInfo).port;`,
      status: `async (method, path, headers) => (await fetch(base + path, { method, headers })).status`,
    },
    fastify: {
      imports: `import Fastify from 'fastify';
import { queueRoutes } from './queue/routes.js';
const app = Fastify();
await app.register(queueRoutes);`,
      status: `async (method, path, headers) => (await app.inject({ method, url: path, headers })).statusCode`,
    },
    node: {
      imports: `import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { handleQueueRequest } from './queue/http.js';
const server = createServer((req, res) => {
  void handleQueueRequest(req, res).then((served) => served || res.writeHead(404).end());
}).listen(0, '127.0.0.1');
await new Promise((resolve) => server.once('listening', resolve));
const base = 'http://127.0.0.1:' + (server.address() as AddressInfo).port;`,
      status: `async (method, path, headers) => (await fetch(base + path, { method, headers })).status`,
    },
  };

  it.each(['next', 'express', 'hono', 'fastify', 'node'] as const)(
    'the %s scaffold answers the cron route only with the bearer CRON_SECRET and the dashboard only with its password',
    async (framework) => {
      const dir = project(framework);
      expect((await cli(['init', '--backend', 'redis'], dir)).code).toBe(0);
      // Next.js projects are CommonJS here (no "type": "module"): the probe runs in an async function.
      writeFileSync(
        join(dir, 'probe.ts'),
        `${SERVE[framework].imports}
type Status = (method: string, path: string, headers: Record<string, string>) => Promise<number>;
async function main() {
  const status: Status = ${SERVE[framework].status};
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
  process.exit(0);
}
void main();
`,
      );
      let stdout: string;
      try {
        ({ stdout } = await run(
          process.execPath,
          ['--import', join(ROOT, 'node_modules/tsx/dist/loader.mjs'), 'probe.ts'],
          {
            cwd: dir,
            env: { PATH: process.env.PATH ?? '', CRON_SECRET: 'right', QUEUE_DASHBOARD_PASSWORD: 'pw', REDIS_URL },
          },
        ));
      } finally {
        // The scaffold uses the default key prefix: remove what its queue wrote under it.
        const redis = new Redis(REDIS_URL);
        const keys = await redis.keys('dq:{q}:*');
        if (keys.length > 0) await redis.del(...keys);
        await redis.quit();
      }
      expect(JSON.parse(stdout)).toEqual({
        cronWithout: 401,
        cronWrong: 401,
        cronRight: 200,
        dashboardWithout: 401,
        dashboardWrong: 401,
        dashboardPage: 200,
        dashboardApi: 200,
        dashboardPost: 404,
      });
    },
  );
});
