/** The "did you mean" hint of unknown option keys. */
import { describe, expect, it } from 'vitest';
import { findUnknownKey, nearestKey } from './option-keys.js';

const JOB = [
  'jobType',
  'payload',
  'maxAttempts',
  'priority',
  'runAt',
  'timeoutMs',
  'tags',
  'idempotencyKey',
  'retryDelay',
  'retryDelayMax',
];

describe('nearestKey', () => {
  it.each([
    ['maxAttempt', 'maxAttempts'],
    ['maxattempts', 'maxAttempts'],
    ['prority', 'priority'],
    ['priotiry', 'priority'],
    ['timeout', 'timeoutMs'],
    ['tag', 'tags'],
    ['idempotency_key', 'idempotencyKey'],
    ['retryDelayMs', 'retryDelay'],
  ])('suggests a known key for the near miss %s', (key, expected) => {
    expect(nearestKey(key, JOB)).toBe(expected);
  });

  it.each(['color', 'x', 'status', 'db'])('suggests nothing for %s, which is not close to any key', (key) => {
    expect(nearestKey(key, JOB)).toBeUndefined();
  });
});

describe('findUnknownKey', () => {
  it('names the path, the value and the known keys; keys holding undefined count as absent', () => {
    expect(findUnknownKey('jobs[2]', { jobType: 'a', extra: undefined }, JOB, 'job options')).toBeNull();
    expect(findUnknownKey('jobs[2]', { jobType: 'a', prio: 3 }, JOB, 'job options')).toEqual({
      field: 'jobs[2].prio',
      message: expect.stringMatching(
        /^Unknown option `jobs\[2\]\.prio` in job options, got 3 \(number\)\. Did you mean `priority`\? Known options: jobType, /,
      ),
    });
  });

  it('explains a misplaced key instead of guessing', () => {
    expect(
      findUnknownKey('', { schema: 'x' }, ['keyPrefix'], 'the queue configuration', { schema: 'a postgres option' }),
    ).toEqual({
      field: 'schema',
      message: 'Unexpected `schema`: a postgres option',
    });
  });
});
