import type { Backend, FailInput, FailResult } from '../../src/backend.js';

/** Records one failure at `now` through the backend's batched failJobs, as the processor's buffer would. */
export async function failOne(
  backend: Backend,
  { now, ...failure }: FailInput & { now: Date },
): Promise<FailResult | null> {
  const [result] = await backend.failJobs([failure], now);
  return result ?? null;
}
