import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Backend } from './backend.js';
import { HeldRuns } from './held-runs.js';
import type { JobRecord } from './types.js';

const job = { id: 1, jobType: 'x' } as JobRecord;

describe('HeldRuns', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('sets its lease-check timer after the caller that adds a run, and once while runs are held', async () => {
    const timers = vi.spyOn(globalThis, 'setTimeout');
    const held = new HeldRuns({} as Backend, 'w', 60_000, () => undefined);
    const first = held.add(job);
    // The processor starts the handler right after add(), in the same synchronous run.
    expect(timers).toHaveBeenCalledTimes(0);
    await Promise.resolve();
    expect(timers).toHaveBeenCalledTimes(1);
    held.add({ ...job, id: 2 });
    await Promise.resolve();
    expect(timers).toHaveBeenCalledTimes(1);
    held.remove(first);
    held.remove(held.list()[0]!);
    await Promise.resolve();
    expect(timers).toHaveBeenCalledTimes(1);
  });
});
