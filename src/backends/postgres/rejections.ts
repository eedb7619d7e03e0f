/**
 * Tells "PostgreSQL refused the values of this write" from "PostgreSQL is unavailable". Only
 * the first is final: the processor stops retrying such a write and deals with that one job,
 * while connection errors are retried as before.
 */
import { StoreRejectedError } from '../../errors.js';

/** SQLSTATE classes caused by the values written: 22 data exception, 23 integrity constraint violation. */
const REJECTION_CLASSES = new Set(['22', '23']);

/** The SQLSTATE of a driver error, also when it was wrapped (looked up along `cause`). */
function sqlState(err: unknown): string | undefined {
  let current = err;
  for (let depth = 0; depth < 5 && current !== null && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Runs a write; a refusal of its values is rethrown as StoreRejectedError, anything else as it is. */
export async function rejectingValues<T>(what: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    const state = sqlState(err);
    if (state === undefined || !REJECTION_CLASSES.has(state.slice(0, 2))) throw err;
    const message = err instanceof Error ? err.message : String(err);
    throw new StoreRejectedError(`PostgreSQL refused ${what} (SQLSTATE ${state}): ${message}`, { cause: err });
  }
}
