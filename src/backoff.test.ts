import { describe, expect, it } from 'vitest';
import { MAX_RETRY_DELAY_MS, retryAt, retryDelayMs, type RetrySettings } from './backoff.js';

const unset: RetrySettings = { retryDelay: null, retryBackoff: null, retryDelayMax: null };
const fixed = (value: number) => () => value;

describe('retry delay (SPEC §4.5)', () => {
  it('uses the legacy 2^attempts minutes when no retry option is set, without jitter', () => {
    expect(retryDelayMs(unset, 1, fixed(0))).toBe(2 * 60_000);
    expect(retryDelayMs(unset, 3, fixed(0.99))).toBe(8 * 60_000);
  });

  it('multiplies retryDelay by 2^attempts and the jitter factor with backoff', () => {
    const s = { ...unset, retryDelay: 10, retryBackoff: true };
    // random 0 -> factor 0.5; random 1 (the limit) -> factor 1.0
    expect(retryDelayMs(s, 1, fixed(0))).toBe(10 * 2 * 0.5 * 1000);
    expect(retryDelayMs(s, 2, fixed(0.5))).toBe(10 * 4 * 0.75 * 1000);
    expect(retryDelayMs(s, 3, fixed(1))).toBe(10 * 8 * 1.0 * 1000);
  });

  it('keeps the jitter factor between 0.5 and 1.0 with the real random source', () => {
    const s = { ...unset, retryDelay: 1 };
    for (let i = 0; i < 200; i++) {
      const ms = retryDelayMs(s, 2, Math.random);
      expect(ms).toBeGreaterThanOrEqual(2000);
      expect(ms).toBeLessThanOrEqual(4000);
    }
  });

  it('defaults to backoff with a 60 s base once any retry option is set', () => {
    expect(retryDelayMs({ ...unset, retryBackoff: true }, 1, fixed(1))).toBe(60 * 2 * 1000);
    expect(retryDelayMs({ ...unset, retryDelayMax: 1e9 }, 2, fixed(0))).toBe(60 * 4 * 0.5 * 1000);
  });

  it('applies jitter before the cap, so the cap is never exceeded', () => {
    const s = { retryDelay: 10, retryBackoff: true, retryDelayMax: 30 };
    // 10 * 2^5 = 320 s; even the smallest jitter (160 s) is above the cap
    expect(retryDelayMs(s, 5, fixed(0))).toBe(30_000);
    expect(retryDelayMs(s, 5, fixed(0.999))).toBe(30_000);
    // below the cap the jittered value stays: 10 * 2 * 0.5 = 10 s
    expect(retryDelayMs(s, 1, fixed(0))).toBe(10_000);
  });

  it('uses exactly retryDelay seconds without backoff, ignoring retryDelayMax', () => {
    expect(retryDelayMs({ retryDelay: 7, retryBackoff: false, retryDelayMax: 1 }, 4, fixed(0))).toBe(7000);
    expect(retryDelayMs({ ...unset, retryBackoff: false }, 4, fixed(0))).toBe(60_000);
    expect(retryDelayMs({ ...unset, retryDelay: 0, retryBackoff: false }, 4, fixed(0))).toBe(0);
  });

  it('counts the failed attempt in the exponent', () => {
    const s = { ...unset, retryDelay: 1 };
    expect(retryDelayMs(s, 1, fixed(1))).toBe(2000);
    expect(retryDelayMs(s, 2, fixed(1))).toBe(4000);
  });

  it('bounds huge exponents so the retry time stays a valid Date', () => {
    expect(retryDelayMs(unset, 5000, fixed(0))).toBe(MAX_RETRY_DELAY_MS);
    const at = retryAt({ ...unset, retryDelay: 60 }, 100_000, new Date(0), fixed(0));
    expect(Number.isNaN(at.getTime())).toBe(false);
  });

  it('computes the retry time from now', () => {
    const now = new Date('2030-01-01T00:00:00Z');
    expect(retryAt({ ...unset, retryDelay: 5, retryBackoff: false }, 1, now).toISOString()).toBe(
      '2030-01-01T00:00:05.000Z',
    );
  });
});
