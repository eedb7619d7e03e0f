import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadEnvFile } from './env-file.js';

describe('loadEnvFile (--envPath)', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  function load(text: string, env: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
    const dir = mkdtempSync(join(tmpdir(), 'queuedev-env-'));
    dirs.push(dir);
    const file = join(dir, 'queue.env');
    writeFileSync(file, text);
    loadEnvFile(file, env);
    return env;
  }

  it('reads quoting, comments, multiline values and export as Node’s own .env parser does', () => {
    const env = load(
      [
        '# a comment line',
        'export EXPORTED=yes',
        'PLAIN=value # a trailing comment',
        'HASH=abc#def',
        "SINGLE='kept # inside quotes'",
        'ESCAPED="line1\\nline2"',
        'MULTILINE="first',
        'second"',
        'BACKTICK=`it\'s "both"`',
        'EMPTY=',
        'SPACED =  padded  ',
        '',
      ].join('\n'),
    );
    expect(env).toEqual({
      EXPORTED: 'yes',
      PLAIN: 'value',
      HASH: 'abc',
      SINGLE: 'kept # inside quotes',
      ESCAPED: 'line1\nline2',
      MULTILINE: 'first\nsecond',
      BACKTICK: 'it\'s "both"',
      EMPTY: '',
      SPACED: 'padded',
    });
  });

  it('leaves variables already set in the environment as they are', () => {
    expect(load('PG_QUEUE_DATABASE=postgres://file\nOTHER=x\n', { PG_QUEUE_DATABASE: 'postgres://env' })).toEqual({
      PG_QUEUE_DATABASE: 'postgres://env',
      OTHER: 'x',
    });
  });

  it('names the path when the file cannot be read', () => {
    expect(() => loadEnvFile(join(tmpdir(), 'queuedev-no-such-dir', 'missing.env'), {})).toThrow(
      /--envPath .*missing\.env/,
    );
  });
});
