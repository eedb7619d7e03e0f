/**
 * `queue-cli init`: scaffolds queuedev into an existing project. Detects the framework from
 * package.json, writes the queue module, payload map, handlers, a worker or processing route,
 * the dashboard mount, a cron trigger route and the env entries, and never overwrites a file.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { oneOf, parseOptions } from '../args.js';
import { checkProjectPaths, projectAt, shown, writeProjectFile, type Project } from '../project-files.js';
import * as routes from './routes.js';
import * as t from './templates.js';
import type { Backend, Framework, TemplateOptions } from './templates.js';

const FRAMEWORKS: readonly Framework[] = ['next', 'express', 'hono', 'fastify', 'node'];
const BACKENDS: readonly Backend[] = ['postgres', 'redis'];

export const INIT_USAGE = `Usage: queue-cli init [options]

Scaffolds queuedev into the project in the current folder. The framework is read from
package.json (next, express, hono, fastify; a plain Node.js worker otherwise). It writes the
queue module, the payload types, the handlers, a worker (or for Next.js a processing route),
the dashboard mount, a cron trigger route checking Authorization: Bearer <CRON_SECRET>, and
the env entries in .env.example. It never overwrites a file: existing ones are left and listed.

Options:
  --framework <name>   ${FRAMEWORKS.join(', ')}; default: detected from package.json
  --backend <name>     ${BACKENDS.join(', ')}; default postgres
  --dir <path>         the project folder, default the current folder
  --dry-run            print the plan, write nothing`;

interface PlannedFile {
  path: string;
  text: string;
}

export function runInit(args: string[]): Promise<number> {
  const { values } = parseOptions(args, {
    framework: { type: 'string' },
    backend: { type: 'string' },
    dir: { type: 'string' },
    'dry-run': { type: 'boolean' },
  });
  const chosen = values.framework === undefined ? undefined : oneOf('--framework', values.framework, FRAMEWORKS);
  const backend = oneOf('--backend', values.backend ?? 'postgres', BACKENDS);
  const project = projectAt(values.dir, values['dry-run'] ?? false);
  const manifest = join(project.root, 'package.json');
  if (!existsSync(manifest)) {
    throw new Error(`no package.json in ${project.root}: run queue-cli init in your project's folder, or pass --dir`);
  }
  const framework = chosen ?? detectFramework(manifest);
  const hasTsx = 'tsx' in dependencies(manifest);
  const files = planFiles(project, framework, backend);

  const missing = (file: PlannedFile) => !existsSync(file.path);
  // Every file it would write is checked first: a refused one leaves the project as it was.
  checkProjectPaths(project, [...files.filter(missing).map((f) => f.path), join(project.root, ENV_EXAMPLE)]);
  console.log(`${project.dryRun ? 'dry run: ' : ''}queuedev for ${framework} on ${backend}`);
  for (const file of files) {
    const name = shown(project, file.path);
    if (!missing(file)) {
      console.log(`  exists, left as it is: ${name}`);
      continue;
    }
    writeProjectFile(project, file.path, file.text);
    console.log(`  ${project.dryRun ? 'would create' : 'created'}: ${name}`);
  }
  writeEnvEntries(project, backend);
  const queueDir = shown(project, dirname(files[0]!.path));
  const steps = nextSteps(framework, backend, queueDir, hasTsx);
  console.log(`\nNext steps:\n${formatSteps(steps)}`);
  return Promise.resolve(0);
}

/** The dependencies and devDependencies of a package.json, by name. */
function dependencies(manifest: string): Record<string, string> {
  let pkg: { dependencies?: Record<string, string>; devDependencies?: Record<string, string> };
  try {
    pkg = JSON.parse(readFileSync(manifest, 'utf8')) as typeof pkg;
  } catch (err) {
    throw new Error(`cannot read ${manifest} (${(err as Error).message}): fix it or pass --framework`, { cause: err });
  }
  return { ...pkg.devDependencies, ...pkg.dependencies };
}

/** The framework a package.json depends on; a plain Node.js worker when none is known. */
export function detectFramework(manifest: string): Framework {
  const deps = dependencies(manifest);
  // Next.js first: its projects often list a server framework too, for custom servers.
  return (['next', 'fastify', 'hono', 'express'] as const).find((name) => name in deps) ?? 'node';
}

function planFiles(project: Project, framework: Framework, backend: Backend): PlannedFile[] {
  const hasSrc = existsSync(join(project.root, 'src'));
  if (framework === 'next') {
    // The App Router lives in app/ or src/app/; lib/ sits beside it, four levels above a route file.
    const base = existsSync(join(project.root, 'src', 'app')) ? join(project.root, 'src') : project.root;
    const o: TemplateOptions = { backend, ext: '', queueImport: '../../../../lib/queue' };
    const lib = join(base, 'lib', 'queue');
    return [
      ...commonFiles(lib, o),
      { path: join(base, 'app', 'api', 'queue', 'process', 'route.ts'), text: routes.nextProcessRoute(o) },
      { path: join(base, 'app', 'api', 'queue', 'cron', 'route.ts'), text: routes.nextCronRoute(o) },
      { path: join(base, 'app', 'admin', 'jobs', '[[...path]]', 'route.ts'), text: routes.nextDashboardRoute(o) },
    ];
  }
  const o: TemplateOptions = { backend, ext: '.js', queueImport: '.' };
  const dir = join(project.root, hasSrc ? 'src' : '', 'queue');
  const web = {
    express: routes.expressRoutes,
    hono: routes.honoRoutes,
    fastify: routes.fastifyRoutes,
    node: routes.nodeRoutes,
  }[framework];
  const files = [
    ...commonFiles(dir, o),
    { path: join(dir, 'worker.ts'), text: t.worker(o) },
    { path: join(dir, framework === 'node' ? 'http.ts' : 'routes.ts'), text: web(o) },
  ];
  return files;
}

function commonFiles(dir: string, o: TemplateOptions): PlannedFile[] {
  return [
    { path: join(dir, 'payloads.ts'), text: t.payloads() },
    { path: join(dir, 'queue.ts'), text: t.queue(o) },
    { path: join(dir, 'handlers.ts'), text: t.handlers(o) },
    { path: join(dir, 'auth.ts'), text: t.auth() },
    { path: join(dir, 'dashboard.ts'), text: t.dashboard(o) },
    { path: join(dir, 'maintenance.ts'), text: t.maintenance(o) },
  ];
}

const ENV_EXAMPLE = '.env.example';
const ENV_ENTRIES: Record<Backend, [string, string][]> = {
  postgres: [['PG_QUEUE_DATABASE', 'postgres://user:password@localhost:5432/app']],
  redis: [['REDIS_URL', 'redis://localhost:6379']],
};
const SHARED_ENV: [string, string][] = [
  ['CRON_SECRET', ''],
  ['QUEUE_DASHBOARD_PASSWORD', ''],
];

/** Adds the missing entries to .env.example (created if absent); existing lines stay as they are. */
function writeEnvEntries(project: Project, backend: Backend): void {
  const path = join(project.root, ENV_EXAMPLE);
  const current = existsSync(path) ? readFileSync(path, 'utf8') : '';
  const missing = [...ENV_ENTRIES[backend], ...SHARED_ENV].filter(
    ([key]) => !new RegExp(`^\\s*(export\\s+)?${key}=`, 'm').test(current),
  );
  const name = shown(project, path);
  if (missing.length === 0) {
    console.log(`  exists, left as it is: ${name} (has every queuedev entry)`);
    return;
  }
  const block = `# queuedev\n${missing.map(([k, v]) => `${k}=${v}`).join('\n')}\n`;
  const text = current === '' ? block : `${current}${current.endsWith('\n') ? '' : '\n'}\n${block}`;
  writeProjectFile(project, path, text);
  const keys = missing.map(([k]) => k).join(', ');
  const verb = project.dryRun
    ? current === ''
      ? 'would create'
      : `would add ${keys} to`
    : current === ''
      ? 'created'
      : `added ${keys} to`;
  console.log(`  ${verb}: ${name}`);
}

/** One next step: what to do, and the lines to run or paste, each printed on a line of its own. */
interface NextStep {
  text: string;
  code?: string[];
}

/** The numbered steps, code lines indented under their step. */
function formatSteps(steps: NextStep[]): string {
  return steps
    .map(({ text, code = [] }, i) => [`  ${i + 1}. ${text}`, ...code.map((line) => `       ${line}`)].join('\n'))
    .join('\n');
}

const EXAMPLE_JOB =
  "await queue.addJob({ jobType: 'email.send', payload: { to: 'you@example.com', subject: 'Hello', body: 'It works.' } });";

/**
 * What to do after the files are written. `dir` is the queue folder, relative to the project;
 * code lines import it as seen from the folder that holds it (`src/` for `src/queue/`).
 * Every step is run as printed by the init tests, in a scaffolded project per framework.
 */
function nextSteps(framework: Framework, backend: Backend, dir: string, hasTsx: boolean): NextStep[] {
  const driver = backend === 'postgres' ? 'pg' : 'ioredis';
  const env = backend === 'postgres' ? 'PG_QUEUE_DATABASE' : 'REDIS_URL';
  const worker = framework !== 'next';
  const installTsx = worker && !hasTsx;
  const steps: NextStep[] = [
    {
      text: `install queuedev and ${driver}${installTsx ? ', and tsx to run the worker written in TypeScript' : ''}:`,
      code: [`npm install queuedev ${driver}`, ...(installTsx ? ['npm install --save-dev tsx'] : [])],
    },
    { text: `set ${env}, CRON_SECRET and QUEUE_DASHBOARD_PASSWORD in your environment (see .env.example)` },
  ];
  if (backend === 'postgres') {
    steps.push({
      text: "create the queue's tables, and again on every deploy (it applies only new migrations):",
      code: ['npx queue-cli migrate'],
    });
  }
  const parent = dir.includes('/') ? `${dir.slice(0, dir.lastIndexOf('/'))}/` : 'the project folder';
  const from = `(the import is as seen from a file in ${parent}, beside queue/)`;
  if (framework === 'next') {
    // queuedev loads its driver at run time (createRequire), which the bundler cannot follow.
    steps.push({ text: "in next.config, set serverExternalPackages: ['queuedev'] so Next.js leaves it unbundled" });
    steps.push({
      text: 'schedule GET /api/queue/process every minute (it processes a batch of jobs) and GET /api/queue/cron every few minutes, sending Authorization: Bearer $CRON_SECRET (Vercel Cron sends it for you)',
    });
  } else {
    const mount = {
      express: { text: `mount the routes on your Express app ${from}:`, use: 'app.use(queueRoutes);' },
      hono: { text: `mount the routes on your Hono app ${from}:`, use: "app.route('/', queueRoutes);" },
      fastify: { text: `register the routes on your Fastify app ${from}:`, use: 'app.register(queueRoutes);' },
      node: {
        text: `serve the cron route and the dashboard from your node:http server, first thing in its async request listener ${from}:`,
        use: 'if (await handleQueueRequest(req, res)) return;',
      },
    }[framework];
    const imported =
      framework === 'node'
        ? "import { handleQueueRequest } from './queue/http.js';"
        : "import { queueRoutes } from './queue/routes.js';";
    steps.push({ text: mount.text, code: [imported, mount.use] });
    steps.push({
      text: 'run the worker beside your server; it processes the jobs (in production, compile it and run the .js with node):',
      code: [`npx tsx ${dir}/worker.ts`],
    });
  }
  const processedBy = worker ? 'the worker' : '/api/queue/process';
  const where =
    framework === 'next'
      ? `a route handler or server action (@/ is the import alias create-next-app sets up; without it, import ${dir}/queue by its relative path)`
      : `your server's code ${from}`;
  steps.push({
    text: `add a job from ${where}; ${processedBy} runs it and logs "email.send: would send ...":`,
    code: [
      framework === 'next' ? "import { queue } from '@/lib/queue/queue';" : "import { queue } from './queue/queue.js';",
      EXAMPLE_JOB,
    ],
  });
  steps.push({
    text: 'open the dashboard at /admin/jobs, with QUEUE_DASHBOARD_PASSWORD as the password (any user name)',
  });
  if (worker) {
    steps.push({
      text: 'once you add cron schedules, have a scheduler call GET /api/queue/cron every minute with Authorization: Bearer $CRON_SECRET: it enqueues the due ones',
    });
  }
  return steps;
}
