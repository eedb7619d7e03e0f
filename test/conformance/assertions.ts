/** Assertions shared by the conformance files. */
import { expect } from 'vitest';

type ErrorClass = abstract new (...args: never[]) => Error;

/**
 * Awaits `action` (a promise or a function that may throw synchronously) and checks it failed
 * with `type`, with `field` (for ValidationError) and a message containing every fragment.
 */
export async function expectFailure(
  action: Promise<unknown> | (() => unknown),
  type: ErrorClass,
  expected: { field?: string; message?: (string | RegExp)[] } = {},
): Promise<Error> {
  let error: unknown;
  try {
    await (typeof action === 'function' ? action() : action);
  } catch (err) {
    error = err;
  }
  expect(error, `expected a ${type.name}`).toBeInstanceOf(type);
  const e = error as Error & { field?: string };
  if (expected.field !== undefined) expect(e.field).toBe(expected.field);
  for (const fragment of expected.message ?? []) {
    if (typeof fragment === 'string') expect(e.message).toContain(fragment);
    else expect(e.message).toMatch(fragment);
  }
  return e;
}

/** Ids of a list of records, in list order. */
export function ids(records: { id: number }[]): number[] {
  return records.map((r) => r.id);
}
