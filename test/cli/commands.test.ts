/**
 * queue-cli as a whole (SPEC §4.12): --version, --help of every command, usage on an unknown
 * or missing command, and one-line errors with exit status 1 for a bad command line.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, ROOT, show, tempProject } from './run-cli.js';

const COMMANDS = ['migrate', 'init', 'install-skills', 'install-rules', 'install-mcp', 'mcp'];
const dir = tempProject('cli');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('queue-cli', () => {
  it('--version and -v print the package version, exit 0', async () => {
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    for (const flag of ['--version', '-v']) {
      const run = await cli([flag], dir);
      expect(run.code, show(run)).toBe(0);
      expect(run.stdout).toBe(`${version}\n`);
    }
  });

  it('--help lists every command, exit 0', async () => {
    const run = await cli(['--help'], dir);
    expect(run.code).toBe(0);
    for (const command of COMMANDS) expect(run.stdout).toMatch(new RegExp(`^  ${command} `, 'm'));
    expect(run.stdout).not.toContain('not available');
  });

  it.each(COMMANDS)('%s --help prints its own usage, exit 0', async (command) => {
    for (const flag of ['--help', '-h']) {
      const run = await cli([command, flag], dir);
      expect(run.code, show(run)).toBe(0);
      expect(run.stdout).toMatch(new RegExp(`^Usage: queue-cli ${command}`));
      expect(run.stderr).toBe('');
    }
  });

  it('prints the usage on stderr with exit 1 for an unknown command or none', async () => {
    const unknown = await cli(['frobnicate'], dir);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^queue-cli: unknown command "frobnicate"\n\nUsage: queue-cli <command>/);
    const none = await cli([], dir);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/^Usage: queue-cli <command>/);
    // Names of Object.prototype are not commands.
    const proto = await cli(['constructor'], dir);
    expect(proto.code).toBe(1);
    expect(proto.stderr).toContain('unknown command "constructor"');
  });

  it.each(['init', 'install-skills', 'install-rules', 'install-mcp', 'mcp'])(
    '%s refuses an unknown option in one line, then its usage, exit 1',
    async (command) => {
      const run = await cli([command, '--frobnicate'], dir);
      expect(run.code).toBe(1);
      const [first, blank, usage] = run.stderr.split('\n');
      expect(first).toBe(`queue-cli ${command}: unknown option '--frobnicate'`);
      expect(blank).toBe('');
      expect(usage).toBe(`Usage: queue-cli ${command}${command === 'mcp' ? '' : ' [options]'}`);
      expect(run.stdout).toBe('');
    },
  );

  it('names the option, the choices and the value of a bad choice', async () => {
    const run = await cli(['init', '--framework', 'rails'], dir);
    expect(run.code).toBe(1);
    expect(run.stderr.split('\n')[0]).toBe(
      'queue-cli init: --framework must be one of next, express, hono, fastify, node, got "rails"',
    );
    const list = await cli(['install-rules', '--client', 'claude,nope'], dir);
    expect(list.code).toBe(1);
    expect(list.stderr.split('\n')[0]).toBe(
      'queue-cli install-rules: --client must be one of agents, claude, cursor, copilot, windsurf, all, got "nope"',
    );
  });

  it('migrate reports a refused connection in one line with the fix, exit 1', async () => {
    // Nothing listens on this port; the full migrate behaviour is in test/postgres/migrations.test.ts.
    const run = await cli(['migrate'], dir, { PG_QUEUE_DATABASE: 'postgres://app:secret@127.0.0.1:6461/app' });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      'queue-cli migrate: cannot connect to PostgreSQL at 127.0.0.1:6461/app (ECONNREFUSED): check that PostgreSQL is running there and that PG_QUEUE_DATABASE (or --database-url) names it\n',
    );
  });

  it.each([
    ['no scheme', 'localhost:5432/app', ['"localhost:5432/app"', 'no scheme; write postgres:// in front of it']],
    ['an http:// URL', 'http://alice@db.internal/app', ['http:// is not a PostgreSQL scheme']],
    ["libpq's key=value form", 'host=localhost dbname=app password=S3cret-pw', ['key=value', 'password=[redacted]']],
    [
      'a password with an unencoded #',
      'postgres://app:S3cret-pw#@localhost/app',
      ['percent-encode', 'app:[redacted]@'],
    ],
  ])(
    'migrate refuses a PG_QUEUE_DATABASE with %s in one line naming the variable, exit 1',
    async (_label, url, message) => {
      const run = await cli(['migrate'], dir, { PG_QUEUE_DATABASE: url });
      expect(run.code, show(run)).toBe(1);
      expect(run.stderr.trim().split('\n'), show(run)).toHaveLength(1);
      expect(run.stderr).toContain('queue-cli migrate: Expected `PG_QUEUE_DATABASE` to be a PostgreSQL connection URL');
      for (const fragment of message) expect(run.stderr).toContain(fragment);
      expect(run.stderr).not.toContain('S3cret-pw');
    },
  );

  it('migrate names --database-url when the flag holds the malformed string, and an empty variable as empty', async () => {
    const flag = await cli(['migrate', '--database-url', 'localhost:5432/app'], dir, {
      PG_QUEUE_DATABASE: 'postgres://127.0.0.1:6461/app',
    });
    expect(flag.code, show(flag)).toBe(1);
    expect(flag.stderr).toContain('Expected `--database-url` to be a PostgreSQL connection URL');
    const empty = await cli(['migrate'], dir, { PG_QUEUE_DATABASE: '' });
    expect(empty.code, show(empty)).toBe(1);
    expect(empty.stderr).toContain('queue-cli migrate: PG_QUEUE_DATABASE is empty.');
  });

  it('reports a failure that is not about the command line in one line, without a stack or usage', async () => {
    const run = await cli(['init'], dir); // no package.json here
    expect(run.code).toBe(1);
    expect(run.stderr.trim().split('\n'), show(run)).toHaveLength(1);
    expect(run.stderr).toMatch(
      /^queue-cli init: no package\.json in .*: run queue-cli init in your project's folder, or pass --dir\n$/,
    );
  });
});
