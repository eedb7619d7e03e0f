import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { JOB_STATUSES } from '../../types.js';
import { KEY_NAMES, KEYS, redisKeys, renderKeyTable } from './keys.js';

describe('the Redis key table', () => {
  it('is the key table of docs/backends.md', () => {
    const page = readFileSync(new URL('../../../docs/backends.md', import.meta.url), 'utf8');
    expect(page).toContain(`${renderKeyTable()}\n`);
  });

  it('gives redisKeys() and KEY_NAMES the same keys', () => {
    const keys = redisKeys('p:');
    const fromRedisKeys = Object.values(keys).flatMap((v) => (typeof v === 'string' ? [v] : Object.values(v)));
    expect(fromRedisKeys.map((k) => k.slice('p:{q}:'.length)).sort()).toEqual([...KEY_NAMES].sort());
    expect(Object.keys(keys.status).sort()).toEqual([...JOB_STATUSES].sort());
    expect(KEY_NAMES).toHaveLength(KEYS.length - 1 + JOB_STATUSES.length);
  });
});
