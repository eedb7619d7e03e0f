/**
 * Stops and starts the local PostgreSQL cluster and Redis server for the restart tests. Each is
 * found from the URL the tests connect to (PG_URL, REDIS_URL), by port, so a test restarts
 * exactly the store it uses. Controlling the servers needs root (CI runs as root): a refused
 * command fails the test with a message saying so, never lets it pass without a restart.
 */
import { execFile } from 'node:child_process';
import { waitFor } from '../helpers/wait.js';

export interface ServerControl {
  /** For messages, e.g. `PostgreSQL on port 5432`. */
  readonly name: string;
  /** Shuts the server down; resolves once it refuses connections. */
  stop(): Promise<void>;
  /** Starts the server; resolves once it accepts connections. */
  start(): Promise<void>;
  /** Starts the server unless it is running; for cleanup after a failed test. */
  ensureRunning(): Promise<void>;
}

const PERMISSION_HINT =
  'The restart tests stop and start the local database servers and need the right to do so: run them as root, as CI does.';

interface CommandResult {
  code: number | string;
  output: string;
}

function run(file: string, args: string[], timeoutMs = 30_000): Promise<CommandResult> {
  return new Promise((resolve) => {
    execFile(file, args, { timeout: timeoutMs }, (error, stdout, stderr) => {
      const output = `${stderr}${stdout}`.trim();
      // A number is the exit code; a string (ENOENT, EACCES) means it did not run at all.
      if (error) resolve({ code: error.code ?? 'killed', output: output || error.message });
      else resolve({ code: 0, output });
    });
  });
}

async function mustRun(what: string, file: string, args: string[]): Promise<string> {
  const result = await run(file, args);
  if (result.code !== 0) {
    const command = [file, ...args.map((a) => (a === '' ? '""' : a))].join(' ');
    throw new Error(`${what} failed: \`${command}\` ended with ${result.code}: ${result.output}. ${PERMISSION_HINT}`);
  }
  return result.output;
}

async function until(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  await waitFor(check, { timeoutMs, what, intervalMs: 100 });
}

/** Host and port of a URL, which must point at this machine: a remote server cannot be restarted. */
function localAddress(url: string, defaultPort: number): { host: string; port: number } {
  const parsed = new URL(url);
  const host = parsed.hostname === 'localhost' ? '127.0.0.1' : parsed.hostname;
  if (host !== '127.0.0.1') {
    throw new Error(
      `The restart tests restart the server they connect to, which must run on this machine; ${url} names host ${parsed.hostname}`,
    );
  }
  return { host, port: parsed.port ? Number(parsed.port) : defaultPort };
}

/**
 * The PostgreSQL cluster serving `url` (the one pg_lsclusters lists on its port; `15 main` on a
 * stock machine), controlled with pg_ctlcluster: stop is a fast shutdown.
 */
export function postgresServer(url: string): ServerControl {
  const { host, port } = localAddress(url, 5432);
  let cluster: Promise<[version: string, name: string]> | undefined;

  async function findCluster(): Promise<[string, string]> {
    // Columns: version, cluster, port, status, owner, data directory, log file.
    const listing = await mustRun('Listing the PostgreSQL clusters', 'pg_lsclusters', ['--no-header']);
    for (const line of listing.split('\n')) {
      const [version, name, clusterPort] = line.trim().split(/\s+/);
      if (version && name && clusterPort === String(port)) return [version, name];
    }
    throw new Error(`No PostgreSQL cluster of this machine listens on port ${port} (pg_lsclusters):\n${listing}`);
  }

  /** pg_ctlcluster on the cluster; start and stop must succeed, status only answers. */
  async function ctl(action: 'start' | 'stop' | 'status', ...extra: string[]): Promise<CommandResult> {
    const [version, name] = await (cluster ??= findCluster());
    const args = ['--skip-systemctl-redirect', version, name, action, ...extra];
    if (action === 'status') return run('pg_ctlcluster', args);
    const output = await mustRun(
      `${action === 'stop' ? 'Stopping' : 'Starting'} PostgreSQL ${version}/${name}`,
      'pg_ctlcluster',
      args,
    );
    return { code: 0, output };
  }

  // pg_isready exits 0 only when the server accepts connections (1: starting up, 2: no answer).
  const accepting = async () => (await run('pg_isready', ['-h', host, '-p', String(port)])).code === 0;

  async function start(): Promise<void> {
    await ctl('start');
    await until(accepting, 30_000, `PostgreSQL on port ${port} to accept connections (pg_isready)`);
  }

  return {
    name: `PostgreSQL on port ${port}`,
    async stop() {
      await ctl('stop', '-m', 'fast');
      await until(async () => !(await accepting()), 10_000, `PostgreSQL on port ${port} to refuse connections`);
    },
    start,
    async ensureRunning() {
      // status exits 3 when the cluster is down; it may also be up but still starting.
      if ((await ctl('status')).code !== 0) await ctl('start');
      await until(accepting, 30_000, `PostgreSQL on port ${port} to accept connections (pg_isready)`);
    },
  };
}

/**
 * The Redis server serving `url`: SHUTDOWN NOSAVE, then a fresh redis-server without
 * persistence. Nothing is kept on disk, so a restart empties the store.
 */
export function redisServer(url: string): ServerControl {
  const { host, port } = localAddress(url, 6379);
  const cli = (...args: string[]) => run('redis-cli', ['-h', host, '-p', String(port), ...args]);
  const answering = async () => {
    const result = await cli('ping');
    return result.code === 0 && result.output === 'PONG';
  };

  async function start(): Promise<void> {
    await mustRun(`Starting Redis on port ${port}`, 'redis-server', [
      '--daemonize',
      'yes',
      '--bind',
      host,
      '--port',
      String(port),
      '--save',
      '',
      '--appendonly',
      'no',
    ]);
    await until(answering, 10_000, `Redis on port ${port} to answer PING`);
  }

  return {
    name: `Redis on port ${port}`,
    async stop() {
      const result = await cli('shutdown', 'nosave');
      const refused = new Error(
        `Stopping Redis on port ${port} failed: \`redis-cli shutdown nosave\` ended with ${result.code}: ${result.output || 'no output'}. ${PERMISSION_HINT}`,
      );
      if (result.code !== 0) throw refused;
      // A refusal (renamed command, ACL) is printed as a reply, possibly with exit code 0.
      await until(async () => !(await answering()), 10_000, `Redis on port ${port} to stop answering`).catch(() => {
        throw refused;
      });
    },
    start,
    async ensureRunning() {
      if (!(await answering())) await start();
    },
  };
}
