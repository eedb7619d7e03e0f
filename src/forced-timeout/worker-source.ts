/**
 * The program a `forceKillOnTimeout` handler runs in: a worker thread evaluating the
 * handler's own source, so nothing from the parent's scope travels with it (SPEC §4.7).
 *
 * Messages to the parent:
 * - `{ type: 'progress', progress }`, `{ type: 'output', output }`: relayed ctx calls;
 * - `{ type: 'result', ok: true, value }` or `{ type: 'result', ok: false, error: { name, message, stack } }`.
 * With `workerData.compileOnly` the worker only checks that the source evaluates to a function.
 */

import { PROGRESS_RULE, expectationPrefix } from '../checks.js';
import { describeValue } from '../errors.js';

/** Worker code for a handler whose source already passed validateHandlerSerializable. */
export function workerProgram(handlerSource: string): string {
  return `'use strict';
const { parentPort, workerData } = require('node:worker_threads');
function describe(err) {
  if (err instanceof Error) return { name: err.name, message: err.message, stack: err.stack };
  return { name: 'Error', message: typeof err === 'string' ? err : String(err) };
}
function post(message) {
  try {
    parentPort.postMessage(message);
  } catch (err) {
    parentPort.postMessage({ type: 'result', ok: false, error: describe(err) });
  }
}
// The handler is evaluated in the global scope (indirect eval), so it sees globals only, not
// this program's variables; require is made global so handlers can load their dependencies.
globalThis.require = require;
// TypeScript runners (tsx, esbuild keepNames) insert __name(fn, "name") calls into sources.
globalThis.__name ??= (target, value) => Object.defineProperty(target, 'name', { value, configurable: true });
// The parent's describeValue (errors.ts, self-contained), so a refusal here reads as it does there.
const describeValue = ${describeValue.toString()};
let handler;
try {
  handler = (0, eval)(${JSON.stringify(`(${handlerSource}\n)`)});
  if (typeof handler !== 'function') throw new TypeError('the handler source does not evaluate to a function');
} catch (err) {
  post({ type: 'result', ok: false, error: describe(err) });
  handler = undefined;
}
if (handler && workerData.compileOnly) {
  post({ type: 'result', ok: true, value: null });
} else if (handler) {
  const ctx = {
    prolong() {},
    onTimeout() {},
    setProgress(percent) {
      // The same rule as ctx.setProgress in the parent, which rounds the relayed value.
      if (typeof percent !== 'number' || !Number.isFinite(percent) || percent < 0 || percent > 100) {
        throw new RangeError(${JSON.stringify(expectationPrefix('percent', PROGRESS_RULE))} + describeValue(percent));
      }
      post({ type: 'progress', progress: percent });
      return Promise.resolve();
    },
    setOutput(output) {
      post({ type: 'output', output });
      return Promise.resolve();
    },
  };
  const signal = new AbortController().signal;
  // A handler awaiting something that holds no handle (a promise nobody resolves, an unref'd
  // timer) would let the thread exit at once, looking like a crash. This ref'd timer keeps it
  // alive until the handler settles; the parent terminates the thread at the deadline.
  const keepAlive = setInterval(() => {}, 1 << 30);
  Promise.resolve()
    .then(() => handler(workerData.payload, signal, ctx))
    .then(
      (value) => post({ type: 'result', ok: true, value }),
      (err) => post({ type: 'result', ok: false, error: describe(err) }),
    )
    .finally(() => clearInterval(keepAlive));
}
`;
}
