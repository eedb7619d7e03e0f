import { describe, expect, it } from 'vitest';
import { nextCronRun, requireCronExpression, requireTimezone } from './cron.js';
import { ValidationError } from './errors.js';

describe('nextCronRun (DST-correct, §2.9)', () => {
  it('runs at the local time of the zone', () => {
    expect(nextCronRun('0 9 * * *', 'Europe/Berlin', new Date('2026-01-10T12:00:00Z')).toISOString()).toBe(
      '2026-01-11T08:00:00.000Z',
    );
    expect(nextCronRun('0 9 * * *', 'Europe/Berlin', new Date('2026-07-10T12:00:00Z')).toISOString()).toBe(
      '2026-07-11T07:00:00.000Z',
    );
  });

  it('moves a slot in the spring gap to the first valid time (America/New_York)', () => {
    // 2026-03-08 02:30 does not exist in New York: clocks jump from 02:00 EST to 03:00 EDT.
    expect(nextCronRun('30 2 * * *', 'America/New_York', new Date('2026-03-07T12:00:00Z')).toISOString()).toBe(
      '2026-03-08T07:30:00.000Z',
    );
  });

  it('runs a slot in the autumn overlap once (America/New_York)', () => {
    // 2026-11-01 01:30 happens twice (EDT, then EST); the schedule runs once that day.
    const first = nextCronRun('30 1 * * *', 'America/New_York', new Date('2026-10-31T12:00:00Z'));
    const second = nextCronRun('30 1 * * *', 'America/New_York', first);
    expect(first.toISOString()).toBe('2026-11-01T05:30:00.000Z');
    expect(second.toISOString()).toBe('2026-11-02T06:30:00.000Z');
  });

  it('handles the spring gap and autumn overlap in Europe/Berlin', () => {
    // 2026-03-29 02:30 does not exist in Berlin; 2026-10-25 02:30 happens twice.
    expect(nextCronRun('30 2 * * *', 'Europe/Berlin', new Date('2026-03-28T12:00:00Z')).toISOString()).toBe(
      '2026-03-29T01:30:00.000Z',
    );
    const first = nextCronRun('30 2 * * *', 'Europe/Berlin', new Date('2026-10-24T12:00:00Z'));
    expect(first.toISOString()).toBe('2026-10-25T00:30:00.000Z');
    expect(nextCronRun('30 2 * * *', 'Europe/Berlin', first).toISOString()).toBe('2026-10-26T01:30:00.000Z');
  });

  it('returns one next run after a long gap, not one per missed slot', () => {
    expect(nextCronRun('*/5 * * * *', 'UTC', new Date('2026-01-01T10:07:00Z')).toISOString()).toBe(
      '2026-01-01T10:10:00.000Z',
    );
  });
});

describe('cron validation', () => {
  it('rejects expressions that are not 5 fields or do not parse', () => {
    expect(() => requireCronExpression('cronExpression', '* * * * * *')).toThrow(ValidationError);
    expect(() => requireCronExpression('cronExpression', 'every minute')).toThrow(/5-field cron expression/);
    expect(() => requireCronExpression('cronExpression', '61 * * * *')).toThrow(/valid cron expression/);
    expect(requireCronExpression('cronExpression', '*/15 9-17 * * 1-5')).toBe('*/15 9-17 * * 1-5');
  });

  it('rejects unknown time zones', () => {
    expect(() => requireTimezone('timezone', 'Mars/Olympus')).toThrow(/IANA time zone/);
    expect(requireTimezone('timezone', 'Asia/Tokyo')).toBe('Asia/Tokyo');
  });
});
