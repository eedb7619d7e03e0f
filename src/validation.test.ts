/**
 * Unit tests of the pure validation module: defaults, normalization and the checks that run
 * before anything reaches a backend. Behaviour through the queue is in test/conformance.
 */
import { describe, expect, it } from 'vitest';
import { DependencyError, ValidationError } from './errors.js';
import { DEFAULT_MAX_PAYLOAD_BYTES } from './input-limits.js';
import {
  assertNoPlaceholderCycles,
  normalizeEdit,
  normalizeFilter,
  normalizeJob,
  requireJson,
  requireSizedJson,
} from './validation.js';

const NOW = new Date('2030-01-01T00:00:00.000Z');
const LIMITS = { maxPayloadBytes: DEFAULT_MAX_PAYLOAD_BYTES };

describe('normalizeJob', () => {
  it('applies the defaults of SPEC §2.2', () => {
    expect(normalizeJob('', { jobType: 'email', payload: { to: 'x' } }, NOW)).toEqual({
      jobType: 'email',
      payload: { to: 'x' },
      maxAttempts: 3,
      priority: 0,
      runAt: NOW,
      timeoutMs: null,
      forceKillOnTimeout: false,
      tags: [],
      idempotencyKey: null,
      retryDelay: null,
      retryBackoff: null,
      retryDelayMax: null,
      deadLetterJobType: null,
      group: null,
      dependsOnJobIds: null,
      dependsOnTags: null,
      traceContext: null,
    });
  });

  it('keeps given options, dedupes tags and dependency ids in order, defaults group tier to null', () => {
    const runAt = new Date('2031-01-01T00:00:00.000Z');
    const job = normalizeJob(
      'jobs[0]',
      {
        jobType: 'a',
        payload: [1],
        runAt,
        tags: ['x', 'y', 'x'],
        group: { id: 'g' },
        dependsOn: { jobIds: [5, -2, 5], tags: ['t', 't'] },
      },
      NOW,
      { batch: { index: 0, size: 2 } },
    );
    expect(job).toMatchObject({
      runAt,
      tags: ['x', 'y'],
      group: { id: 'g', tier: null },
      dependsOnJobIds: [5, -2],
      dependsOnTags: ['t'],
    });
  });

  it('prefixes error fields with the batch position', () => {
    expect(() => normalizeJob('jobs[3]', { jobType: 'a', payload: {}, priority: 0.5 }, NOW)).toThrow(
      expect.objectContaining({ field: 'jobs[3].priority' }),
    );
  });

  it('accepts the int32 priority bounds and rejects one beyond', () => {
    expect(normalizeJob('', { jobType: 'a', payload: {}, priority: 2_147_483_647 }, NOW).priority).toBe(2_147_483_647);
    expect(normalizeJob('', { jobType: 'a', payload: {}, priority: -2_147_483_648 }, NOW).priority).toBe(
      -2_147_483_648,
    );
    expect(() => normalizeJob('', { jobType: 'a', payload: {}, priority: 2_147_483_648 }, NOW)).toThrow(
      ValidationError,
    );
  });

  it('refuses placeholders outside addJobs, out of range, or naming the job itself', () => {
    expect(() => normalizeJob('', { jobType: 'a', payload: {}, dependsOn: { jobIds: [-1] } }, NOW)).toThrow(
      DependencyError,
    );
    expect(() =>
      normalizeJob('jobs[0]', { jobType: 'a', payload: {}, dependsOn: { jobIds: [-3] } }, NOW, {
        batch: { index: 0, size: 2 },
      }),
    ).toThrow(DependencyError);
    expect(() =>
      normalizeJob('jobs[1]', { jobType: 'a', payload: {}, dependsOn: { jobIds: [-2] } }, NOW, {
        batch: { index: 1, size: 2 },
      }),
    ).toThrow(/itself/);
  });
});

describe('assertNoPlaceholderCycles', () => {
  const job = (deps: number[] | null) => ({
    ...normalizeJob('', { jobType: 'a', payload: {} }, NOW),
    dependsOnJobIds: deps,
  });

  it('accepts chains, diamonds and positive ids', () => {
    expect(() => assertNoPlaceholderCycles([job(null), job([-1]), job([-1]), job([-2, -3, 99])])).not.toThrow();
  });

  it('names the jobs of a cycle', () => {
    expect(() => assertNoPlaceholderCycles([job([-3]), job([-1]), job([-2])])).toThrow(
      new DependencyError('Dependency cycle in addJobs: jobs[0] -> jobs[2] -> jobs[1] -> jobs[0]'),
    );
  });
});

describe('requireJson', () => {
  it('accepts JSON values and honours toJSON', () => {
    const value = { a: [1, 'x', null, true], d: new Date(0), nested: { u: undefined } };
    expect(requireJson('payload', value)).toBe(value);
  });

  it('checks the value a toJSON returns', () => {
    expect(() => requireJson('payload', { x: { toJSON: () => Number.NaN } })).toThrow(
      expect.objectContaining({ field: 'payload.x' }),
    );
  });

  it('accepts strings with well-formed surrogate pairs', () => {
    expect(() => requireJson('payload', { emoji: '\ud83d\ude00', [`k\ud83d\ude00`]: 'ok' })).not.toThrow();
  });

  it('allows the same object twice when it is not its own ancestor', () => {
    const shared = { k: 1 };
    expect(() => requireJson('payload', { a: shared, b: [shared, shared] })).not.toThrow();
  });

  it.each([
    ['a function member', { f: () => 1 }, 'payload.f'],
    ['a symbol member', { s: Symbol('s') }, 'payload.s'],
    ['a function in an array', [() => 1], 'payload[0]'],
    [
      'a class instance',
      {
        d: new (class Point {
          x = 1;
        })(),
      },
      'payload.d',
    ],
    ['a lone high surrogate in a string', { s: 'x\ud800' }, 'payload.s'],
    ['a lone low surrogate in an array', ['\udc00y'], 'payload[0]'],
    ['a lone surrogate in a key', { ['k\ud800']: 1 }, 'payload'],
    ['a NUL in a string', { s: 'a\u0000b' }, 'payload.s'],
    [
      'a deep cycle',
      (() => {
        const a: Record<string, unknown> = {};
        a.b = { c: [a] };
        return a;
      })(),
      'payload.b.c[0]',
    ],
  ])('rejects %s', (_label, value, field) => {
    expect(() => requireJson('payload', value)).toThrow(expect.objectContaining({ field }));
  });

  // The common case is checked by a pass that builds no path; a refusal is worded by the walk
  // that does. These pin that both agree, with the exact messages.
  const nest = (depth: number): unknown => (depth === 0 ? 1 : [nest(depth - 1)]);
  it('accepts sparse arrays, undefined items, null-prototype objects and nesting 100 deep', () => {
    // eslint-disable-next-line no-sparse-arrays
    const value = { sparse: [1, , 3], u: [undefined], bare: Object.assign(Object.create(null) as object, { k: 1 }) };
    expect(requireJson('payload', value)).toBe(value);
    expect(() => requireJson('payload', nest(100))).not.toThrow();
  });

  it.each<[string, unknown, string, string]>([
    ['NaN', { n: Number.NaN }, 'jobs[3].payload.n', 'JSON-storable (numbers must be finite), got NaN'],
    [
      'a bigint',
      [1n],
      'jobs[3].payload[0]',
      'JSON-storable (no functions, symbols, bigints or undefined), got 1 (bigint)',
    ],
    [
      'a Map',
      { m: new Map() },
      'jobs[3].payload.m',
      'JSON-storable (plain objects only, not class instances such as Map), got object',
    ],
    [
      'a NUL in a key',
      { ['a\u0000']: 1 },
      'jobs[3].payload',
      'JSON-storable (keys cannot contain NUL characters), got "a\\u0000"',
    ],
    [
      'a toJSON returning a function',
      { d: { toJSON: () => () => 1 } },
      'jobs[3].payload.d',
      'JSON-storable (no functions, symbols, bigints or undefined)',
    ],
    [
      'nesting 101 deep',
      { a: nest(100) },
      'jobs[3].payload',
      'JSON-storable (arrays and objects nested at most 100 deep; deeper at jobs[3].payload.a',
    ],
  ])('words the refusal of %s in a batch with its path', (_label, payload, field, rule) => {
    let error: unknown;
    try {
      normalizeJob('jobs[3]', { jobType: 'a', payload }, NOW, { batch: { index: 3, size: 4 } });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ValidationError);
    expect(error).toMatchObject({ field });
    expect((error as Error).message).toContain(`Expected \`${field}\` to be ${rule}`);
  });
});

describe('normalizeEdit', () => {
  it('resolves runAt null to now and keeps explicit nulls of retry and dead-letter fields', () => {
    expect(
      normalizeEdit(
        { runAt: null, retryDelay: null, retryBackoff: null, retryDelayMax: null, deadLetterJobType: null },
        NOW,
        LIMITS,
      ),
    ).toEqual({ runAt: NOW, retryDelay: null, retryBackoff: null, retryDelayMax: null, deadLetterJobType: null });
  });

  it('drops undefined fields', () => {
    expect(normalizeEdit({ priority: undefined, tags: undefined }, NOW, LIMITS)).toEqual({});
  });
});

describe('normalizeFilter', () => {
  it('defaults the tag mode to all and leaves absent members out', () => {
    expect(normalizeFilter({ tags: { values: ['a', 'a', 'b'] } })).toEqual({
      tags: { values: ['a', 'b'], mode: 'all' },
    });
    expect(normalizeFilter(undefined)).toBeUndefined();
    expect(normalizeFilter({})).toEqual({});
  });

  it('keeps only the given range operators', () => {
    const d = new Date(0);
    expect(normalizeFilter({ runAt: { gte: d, lt: undefined } })).toEqual({ runAt: { gte: d } });
  });
});

describe('requireSizedJson', () => {
  it('refuses a value whose JSON would be far too large from its shape alone, without serializing it', () => {
    // 60 levels of one array held twice: JSON.stringify would write 2^60 numbers.
    let shared: unknown = 1;
    for (let i = 0; i < 60; i++) shared = [shared, shared];
    expect(() => requireSizedJson('payload', shared, 1024)).toThrow(/got at least \d+ bytes$/);
  });

  it('names the size of a refused string, never its text', () => {
    let error: unknown;
    try {
      requireSizedJson('payload', 'secret'.repeat(1000), 100);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as Error).message).toBe(
      "Expected `payload` to be JSON of at most 100 bytes in UTF-8 (the queue's maxPayloadBytes), got at least 6002 bytes",
    );
  });

  it('still words what is not JSON first when the value is within the limit', () => {
    expect(() => requireSizedJson('payload', { n: Number.NaN }, 1024)).toThrow('numbers must be finite');
  });
});
