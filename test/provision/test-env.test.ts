/**
 * scripts/test-env.sh, run for real: it starts a stopped PostgreSQL cluster and a stopped Redis
 * on spare ports, and says what to install or set when it cannot. The shared servers are never
 * touched: every run points the script at its own ports (QUEUEDEV_PG_PORT, QUEUEDEV_REDIS_PORT)
 * or at the stores the suite already uses (PG_QUEUE_DATABASE, REDIS_URL), and installing is off
 * (QUEUEDEV_INSTALL=no) except in one test, where a stand-in apt-get records what would be run.
 */
import { execFile, spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { PG_URL, REDIS_URL, uniqueName } from '../helpers/backends.js';
import { freePort } from '../helpers/private-servers.js';

const SCRIPT = fileURLToPath(new URL('../../scripts/test-env.sh', import.meta.url));

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(file: string, args: string[], env: NodeJS.ProcessEnv = process.env, timeout = 90_000): Promise<Run> {
  return new Promise((resolve) => {
    execFile(file, args, { env, timeout }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** Runs the script with only the given settings (and never installing anything), as `user` if given. */
function testEnv(settings: Record<string, string>, command: string[] = [], user?: string): Promise<Run> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    const ours = name === 'PG_QUEUE_DATABASE' || name === 'REDIS_URL' || name.startsWith('QUEUEDEV_');
    if (value !== undefined && !ours) env[name] = value;
  }
  const script = ['bash', SCRIPT, ...command];
  const [file, args] = user ? ['runuser', ['-u', user, '--', ...script]] : [script[0] as string, script.slice(1)];
  return run(file, args, { ...env, QUEUEDEV_INSTALL: 'no', ...settings });
}

async function mustRun(file: string, args: string[]): Promise<string> {
  const result = await run(file, args);
  if (result.code !== 0) throw new Error(`${file} ${args.join(' ')} failed (${result.code}): ${result.stderr}`);
  return result.stdout;
}

/** The value an `export NAME=value` line of the script's output gives NAME. */
function exported(stdout: string, name: string): string | undefined {
  return new RegExp(`^export ${name}=(.*)$`, 'm').exec(stdout)?.[1];
}

const ROOT = userInfo().uid === 0;
const NEWEST_PG = existsSync('/usr/lib/postgresql')
  ? readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a))[0]
  : undefined;
const CAN_CREATE_CLUSTER = ROOT && NEWEST_PG !== undefined && existsSync('/usr/bin/pg_createcluster');
/**
 * Whether the script can run as `nobody` from this checkout: root, runuser, and a checkout (with
 * its drivers) that other users may read, which one under a private home directory is not.
 */
const NOBODY_CAN_RUN =
  ROOT &&
  existsSync('/usr/sbin/runuser') &&
  spawnSync(
    '/usr/sbin/runuser',
    ['-u', 'nobody', '--', 'node', '-e', 'require.resolve("pg"); require.resolve("ioredis")'],
    { cwd: dirname(dirname(SCRIPT)), stdio: 'ignore' },
  ).status === 0;

describe('a stopped local server is started', () => {
  // Creating a Debian cluster needs root and postgresql-common; elsewhere there is nothing to start.
  it.skipIf(!CAN_CREATE_CLUSTER)(
    'starts the installed PostgreSQL cluster of its port, gives postgres a password and creates the test database',
    { timeout: 180_000 },
    async () => {
      const version = NEWEST_PG as string;
      const cluster = uniqueName('queuedev_test_env');
      const port = await freePort();
      // As root, pg_createcluster makes a cluster owned by postgres; it is left stopped.
      await mustRun('pg_createcluster', [version, cluster, '--port', String(port)]);
      try {
        const first = await testEnv({ QUEUEDEV_PG_PORT: String(port), REDIS_URL });
        expect(first.stderr).toContain(`test-env: starting PostgreSQL cluster ${version}/${cluster} on port ${port}\n`);
        // Debian's pg_hba.conf asks for a password over TCP, which a fresh postgres role lacks.
        expect(first.stderr).toContain('setting the password');
        expect(first.stderr).toContain('test-env: creating database test\n');
        expect(first.code).toBe(0);
        const url = exported(first.stdout, 'PG_QUEUE_DATABASE');
        expect(url).toBe(`postgres://postgres:postgres@127.0.0.1:${port}/test`);

        const client = new pg.Client({ connectionString: url });
        await client.connect();
        try {
          const { rows } = await client.query<{ db: string }>('SELECT current_database() AS db');
          expect(rows[0]?.db).toBe('test');
        } finally {
          await client.end();
        }

        // Run again with everything up: one line per store, nothing started or changed.
        const again = await testEnv({ QUEUEDEV_PG_PORT: String(port), REDIS_URL });
        expect(again.code).toBe(0);
        expect(again.stderr).toBe(
          `test-env: PostgreSQL postgres://postgres:***@127.0.0.1:${port}/test answers\n` +
            `test-env: Redis ${REDIS_URL} answers (REDIS_URL)\n`,
        );
        expect(exported(again.stdout, 'PG_QUEUE_DATABASE')).toBe(url);

        // A password the owner chose is never replaced: the script says to set PG_QUEUE_DATABASE.
        await mustRun('runuser', [
          '-u',
          'postgres',
          '--',
          'psql',
          '-X',
          '-q',
          '-p',
          String(port),
          '-c',
          "ALTER ROLE postgres PASSWORD 'chosen'",
        ]);
        const chosen = await testEnv({ QUEUEDEV_PG_PORT: String(port), REDIS_URL });
        expect(chosen.code).toBe(1);
        expect(chosen.stderr).toContain(
          `test-env: error: cannot log in to PostgreSQL on 127.0.0.1:${port} as user postgres: `,
        );
        expect(chosen.stderr).toContain('Set PG_QUEUE_DATABASE to a database the tests may use');
        expect(chosen.stderr).not.toContain('setting the password');
        const owner = new pg.Client({ connectionString: `postgres://postgres:chosen@127.0.0.1:${port}/test` });
        await owner.connect();
        await owner.end();
      } finally {
        await mustRun('pg_dropcluster', ['--stop', version, cluster]);
      }
    },
  );

  // As above, and running as `nobody` (NOBODY_CAN_RUN): a user who may neither start the cluster
  // nor run psql as postgres (no sudo here) is told what to run.
  it.skipIf(!CAN_CREATE_CLUSTER || !NOBODY_CAN_RUN)(
    'tells a user without root what to run to start the cluster and to give postgres a password',
    { timeout: 180_000 },
    async () => {
      const version = NEWEST_PG as string;
      const cluster = uniqueName('queuedev_test_env');
      const port = await freePort();
      await mustRun('pg_createcluster', [version, cluster, '--port', String(port)]);
      try {
        const stopped = await testEnv({ QUEUEDEV_PG_PORT: String(port), REDIS_URL }, [], 'nobody');
        expect(stopped.code).toBe(1);
        expect(stopped.stderr).toContain(
          `test-env: error: could not start PostgreSQL cluster ${version}/${cluster} (the reason is above): ` +
            `start it with 'sudo pg_ctlcluster ${version} ${cluster} start', or set PG_QUEUE_DATABASE to a running server's database.\n`,
        );

        await mustRun('pg_ctlcluster', [version, cluster, 'start']);
        const locked = await testEnv({ QUEUEDEV_PG_PORT: String(port), REDIS_URL }, [], 'nobody');
        expect(locked.code).toBe(1);
        expect(locked.stderr).toContain(
          `test-env: error: user postgres cannot log in to PostgreSQL on 127.0.0.1:${port} (`,
        );
        expect(locked.stderr).toContain(
          `giving it a password needs root or passwordless sudo: run sudo -u postgres psql -p ${port} -c "ALTER ROLE postgres PASSWORD 'postgres'" ` +
            `and run the tests again, or set PG_QUEUE_DATABASE=postgres://USER:PASSWORD@127.0.0.1:${port}/test.\n`,
        );
      } finally {
        await mustRun('pg_dropcluster', ['--stop', version, cluster]);
      }
    },
  );

  it('starts redis-server without persistence on its port and runs the command with REDIS_URL set', async () => {
    const port = await freePort();
    const redis = new Redis({ port, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    redis.on('error', () => {});
    try {
      const result = await testEnv({ QUEUEDEV_REDIS_PORT: String(port), PG_QUEUE_DATABASE: PG_URL }, [
        'node',
        '-e',
        'console.log(process.env.REDIS_URL + " " + process.env.PG_QUEUE_DATABASE)',
      ]);
      expect(result.stderr).toContain(`test-env: starting redis-server on 127.0.0.1:${port}\n`);
      expect(result.stderr).toContain(`test-env: Redis redis://127.0.0.1:${port} started\n`);
      expect(result.code).toBe(0);
      expect(result.stdout).toBe(`redis://127.0.0.1:${port} ${PG_URL}\n`);

      await redis.connect();
      expect(await redis.ping()).toBe('PONG');
      expect(await redis.config('GET', 'save')).toEqual(['save', '']);
      expect(await redis.config('GET', 'appendonly')).toEqual(['appendonly', 'no']);
    } finally {
      // The server the script started; it is stopped here, whatever the test found.
      await redis.connect().catch(() => undefined);
      await redis.shutdown('NOSAVE').catch(() => undefined);
      redis.disconnect();
    }
  });
});

describe('stores given by the variables', () => {
  it('fails with one message when PG_QUEUE_DATABASE does not answer', async () => {
    const port = await freePort();
    const url = `postgres://app:secret@127.0.0.1:${port}/app`;
    const result = await testEnv({ PG_QUEUE_DATABASE: url, REDIS_URL, QUEUEDEV_WAIT_SECONDS: '2' });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      `test-env: error: PostgreSQL at postgres://app:***@127.0.0.1:${port}/app (PG_QUEUE_DATABASE) did not answer within 2 seconds: connect ECONNREFUSED 127.0.0.1:${port}. ` +
        'Start that server, or set PG_QUEUE_DATABASE to one that answers (unset, the tests use a local server on 127.0.0.1:5432).\n',
    );
  });

  it('fails with one message when REDIS_URL does not answer', async () => {
    const port = await freePort();
    const result = await testEnv({
      PG_QUEUE_DATABASE: PG_URL,
      REDIS_URL: `redis://127.0.0.1:${port}`,
      QUEUEDEV_WAIT_SECONDS: '2',
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      `test-env: error: Redis at redis://127.0.0.1:${port} (REDIS_URL) did not answer within 2 seconds: connect ECONNREFUSED 127.0.0.1:${port}. ` +
        'Start that server, or set REDIS_URL to one that answers (unset, the tests use a local server on 127.0.0.1:6379).\n',
    );
  });

  it('fails at once, without waiting, when the server refuses the database', async () => {
    const url = new URL(PG_URL);
    url.pathname = `/${uniqueName('missing')}`;
    const started = Date.now();
    const result = await testEnv({ PG_QUEUE_DATABASE: url.href, REDIS_URL, QUEUEDEV_WAIT_SECONDS: '30' });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^test-env: error: PostgreSQL at .* \(PG_QUEUE_DATABASE\) refused the tests: database "missing_\w+" does not exist\. Set PG_QUEUE_DATABASE to one the tests may use/,
    );
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('asks for npm install first when the drivers are missing', async () => {
    const clone = mkdtempSync(join(tmpdir(), 'queuedev-test-env-clone-'));
    try {
      mkdirSync(join(clone, 'scripts'));
      copyFileSync(SCRIPT, join(clone, 'scripts', 'test-env.sh'));
      const result = await run('bash', [join(clone, 'scripts', 'test-env.sh')]);
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(
        `test-env: error: the drivers pg and ioredis are not installed in ${clone}: run npm install first\n`,
      );
    } finally {
      rmSync(clone, { recursive: true, force: true });
    }
  });

  it('refuses a setting that is not valid before doing anything', async () => {
    const result = await testEnv({ QUEUEDEV_REDIS_PORT: '63a9' });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe("test-env: error: QUEUEDEV_REDIS_PORT must be a port number, got '63a9'\n");
  });
});

describe('a server that is missing and may not be installed', () => {
  // A PATH holding every command of this machine's PATH but the PostgreSQL and Redis ones.
  const bin = mkdtempSync(join(tmpdir(), 'queuedev-test-env-'));
  chmodSync(bin, 0o755);
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir || !existsSync(dir)) continue;
    for (const name of readdirSync(dir)) {
      if (/^(psql|pg_|postgres|initdb|redis-|sudo$)/.test(name) || existsSync(join(bin, name))) continue;
      symlinkSync(join(dir, name), join(bin, name));
    }
  }
  afterAll(() => rmSync(bin, { recursive: true, force: true }));

  it('names both packages and both variables when neither store can be had', async () => {
    const [pgPort, redisPort] = [await freePort(), await freePort()];
    const result = await testEnv({
      PATH: bin,
      QUEUEDEV_PG_PORT: String(pgPort),
      QUEUEDEV_REDIS_PORT: String(redisPort),
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      `test-env: error: the tests need PostgreSQL and Redis: nothing answers on 127.0.0.1:${pgPort} and PostgreSQL is not installed; ` +
        `nothing answers on 127.0.0.1:${redisPort} and Redis is not installed, and installing packages is turned off (QUEUEDEV_INSTALL=no). ` +
        'Install postgresql and redis-server (Debian/Ubuntu: sudo apt-get install postgresql redis-server) and run the tests again, ' +
        'or set PG_QUEUE_DATABASE=postgres://USER:PASSWORD@HOST:5432/DATABASE and REDIS_URL=redis://HOST:6379 to use running servers.\n',
    );
  });

  it('names only what is missing when the other store is given', async () => {
    const redisPort = await freePort();
    const result = await testEnv({ PATH: bin, PG_QUEUE_DATABASE: PG_URL, QUEUEDEV_REDIS_PORT: String(redisPort) });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `test-env: error: the tests need PostgreSQL and Redis: nothing answers on 127.0.0.1:${redisPort} and Redis is not installed, ` +
        'and installing packages is turned off (QUEUEDEV_INSTALL=no). ' +
        'Install redis-server (Debian/Ubuntu: sudo apt-get install redis-server) and run the tests again, ' +
        'or set REDIS_URL=redis://HOST:6379 to use running servers.\n',
    );
  });

  // Installing runs apt-get as root; here a stand-in apt-get records its calls and fails the
  // install, as apt-get does when a package cannot be had, so nothing is installed for real.
  it.skipIf(!ROOT)('installs the missing servers with apt-get when it runs as root', async () => {
    const fake = mkdtempSync(join(tmpdir(), 'queuedev-test-env-apt-'));
    try {
      const log = join(fake, 'calls');
      writeFileSync(
        join(fake, 'apt-get'),
        `#!/bin/sh\necho "$DEBIAN_FRONTEND apt-get $*" >> ${log}\n` +
          'if [ "$1" = install ]; then echo "E: Unable to locate package" >&2; exit 100; fi\n',
        { mode: 0o755 },
      );
      const [pgPort, redisPort] = [await freePort(), await freePort()];
      const result = await testEnv({
        PATH: `${fake}${delimiter}${bin}`,
        QUEUEDEV_INSTALL: 'yes',
        QUEUEDEV_PG_PORT: String(pgPort),
        QUEUEDEV_REDIS_PORT: String(redisPort),
      });
      expect(readFileSync(log, 'utf8').trim().split('\n')).toEqual([
        'noninteractive apt-get update -qq',
        'noninteractive apt-get install -y -qq --no-install-recommends postgresql redis-server',
      ]);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('test-env: installing postgresql redis-server with apt-get\n');
      expect(result.stderr).toContain(
        'test-env: error: apt-get could not install postgresql redis-server (its output is above): ' +
          'install them yourself, or set PG_QUEUE_DATABASE and REDIS_URL to running servers.\n',
      );
    } finally {
      rmSync(fake, { recursive: true, force: true });
    }
  });

  // Running as another user needs root, runuser and a checkout `nobody` may read (NOBODY_CAN_RUN).
  it.skipIf(!NOBODY_CAN_RUN)('says that installing needs root or sudo when run by another user', async () => {
    const [pgPort, redisPort] = [await freePort(), await freePort()];
    const result = await run('/usr/sbin/runuser', ['-u', 'nobody', '--', 'bash', SCRIPT], {
      PATH: bin,
      HOME: tmpdir(),
      QUEUEDEV_INSTALL: 'yes',
      QUEUEDEV_PG_PORT: String(pgPort),
      QUEUEDEV_REDIS_PORT: String(redisPort),
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'and Redis is not installed, and installing packages needs root or passwordless sudo. Install postgresql and redis-server',
    );
  });
});
