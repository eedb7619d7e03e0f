import { describe, expect, it } from 'vitest';
import { scripts } from './backends/redis/lua.generated.js';
import { THROUGHPUT_KEEP_MINUTES, fillMinutes, throughputCutoff, throughputWindow, toJobCounts } from './overview.js';

const T = new Date('2030-01-01T10:00:00.000Z');
const at = (minutes: number) => new Date(T.getTime() + minutes * 60_000);

describe('overview', () => {
  it('reads the last minutes up to the current one, whole minutes', () => {
    expect(throughputWindow(new Date(T.getTime() + 59_999), 3)).toEqual({ from: at(-2), to: T });
    expect(throughputWindow(T, 1)).toEqual({ from: T, to: T });
  });

  it('fills the minutes without counters with zeros, oldest first', () => {
    const window = { from: at(0), to: at(2) };
    expect(fillMinutes([{ minute: at(1), completed: 3, failed: 1 }], window)).toEqual([
      { minute: at(0), completed: 0, failed: 0 },
      { minute: at(1), completed: 3, failed: 1 },
      { minute: at(2), completed: 0, failed: 0 },
    ]);
  });

  it('keeps the counters of the reported hour and one minute more, in both backends', () => {
    expect(throughputCutoff(new Date(T.getTime() + 30_000))).toEqual(at(-(THROUGHPUT_KEEP_MINUTES - 1)));
    // The Redis scripts trim by themselves, with the same number of minutes.
    expect(scripts.completeJobs.source).toContain(`local THROUGHPUT_KEEP_MINUTES = ${THROUGHPUT_KEEP_MINUTES}\n`);
  });

  it('caps each status at the limit and lists the types in code unit order', () => {
    const counts = toJobCounts(
      {
        byStatus: { pending: 5, failed: 2 },
        byType: [
          { status: 'pending', jobType: 'b', count: 3 },
          { status: 'pending', jobType: 'B', count: 2 },
          { status: 'failed', jobType: 'b', count: 2 },
        ],
      },
      5,
    );
    expect(counts.byStatus).toEqual({ pending: 5, processing: 0, completed: 0, failed: 2, cancelled: 0, waiting: 0 });
    expect(counts.atLeast).toEqual(['pending']);
    expect(counts.byJobType.map((t) => [t.jobType, t.counts.pending, t.counts.failed])).toEqual([
      ['B', 2, 0],
      ['b', 3, 2],
    ]);
  });
});
