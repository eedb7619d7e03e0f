/**
 * Can a handler run in a worker thread from its source alone? (SPEC §4.7 rules 2, 4, 5.)
 * `validateHandlerSerializable` inspects the source; `testHandlerSerialization` also compiles
 * it in a real worker thread.
 */
import { Worker } from 'node:worker_threads';
import { analyzeHandlerSource, type SourceAnalysis } from './free-identifiers.js';
import { workerProgram } from './worker-source.js';

export interface SerializationCheck {
  isSerializable: boolean;
  /** Why not, when `isSerializable` is false. */
  error?: string | undefined;
}

/**
 * Names a handler may use without declaring them: the worker's globals, the CommonJS names the
 * worker provides, and `__name`, which TypeScript runners (tsx, esbuild keepNames) insert into
 * function sources and the worker defines. Not `arguments`: a function handler has its own, but
 * in an arrow handler it is the enclosing function's, which the worker does not have.
 */
const EXTRA_GLOBALS = ['require', 'module', 'exports', '__dirname', '__filename', '__name'];

let globals: Set<string> | undefined;
function knownGlobals(): Set<string> {
  if (!globals) {
    globals = new Set(EXTRA_GLOBALS);
    for (let o: object | null = globalThis; o; o = Object.getPrototypeOf(o) as object | null) {
      for (const name of Object.getOwnPropertyNames(o)) globals.add(name);
    }
  }
  return globals;
}

/**
 * Checks, without running it, that `handler` can be rebuilt from its source in a worker thread:
 * not native or bound, not a class or method shorthand, no `this`, no captured outer variables
 * (found by parsing the source and resolving its scopes).
 * @example validateHandlerSerializable(async (payload) => { const { send } = await import('./mail.js'); await send(payload); }, 'email')
 */
export function validateHandlerSerializable(handler: unknown, jobType: string): SerializationCheck {
  const no = (why: string): SerializationCheck => ({
    isSerializable: false,
    error: `The handler for job type "${jobType}" cannot run with forceKillOnTimeout: ${why}`,
  });
  if (typeof handler !== 'function')
    return no(`expected a function, got ${handler === null ? 'null' : typeof handler}`);
  const source = Function.prototype.toString.call(handler);
  if (/\{\s*\[native code\]\s*\}\s*$/.test(source)) {
    return handler.name.startsWith('bound ')
      ? no(
          'it is a bound function (made with .bind()); its source and bound `this` cannot be sent to a worker thread, pass the unbound function',
        )
      : no('it is native code, which has no source to send to a worker thread');
  }
  if (/^class\b/.test(source)) return no('it is a class, not a function');
  try {
    // Compiles only; the handler body does not run.
    // eslint-disable-next-line @typescript-eslint/no-implied-eval -- checks that the source parses as a function expression, as the worker thread will rebuild it
    new Function(`return (${source}\n);`);
  } catch {
    return no(
      'it is a method shorthand (such as `run(payload) {}` in an object or class); write it as `async (payload) => {}` or `async function (payload) {}`',
    );
  }
  let analysis: SourceAnalysis;
  try {
    analysis = analyzeHandlerSource(source, knownGlobals());
  } catch (err) {
    return no(`its source could not be parsed (${(err as Error).message})`);
  }
  const { freeIdentifiers, usesThis } = analysis;
  if (usesThis) return no('it uses `this`, which a worker thread cannot provide');
  if (freeIdentifiers.length > 0) {
    const names = freeIdentifiers.map((n) => `\`${n}\``).join(', ');
    return no(
      `it uses ${names} from outside the function; a worker thread receives only the handler's source, so import dependencies inside the handler (await import(...)) and pass data in the payload`,
    );
  }
  return { isSerializable: true };
}

/** Like validateHandlerSerializable, then compiles the source in a real worker thread. */
export async function testHandlerSerialization(handler: unknown, jobType: string): Promise<SerializationCheck> {
  const check = validateHandlerSerializable(handler, jobType);
  if (!check.isSerializable) return check;
  const source = Function.prototype.toString.call(handler as (...args: unknown[]) => unknown);
  return new Promise<SerializationCheck>((resolve) => {
    const worker = new Worker(workerProgram(source), { eval: true, workerData: { compileOnly: true } });
    let settled = false;
    const done = (result: SerializationCheck) => {
      if (settled) return;
      settled = true;
      resolve(result);
      void worker.terminate();
    };
    worker.once('message', (message: { ok: boolean; error?: { message: string } }) => {
      done(
        message.ok
          ? { isSerializable: true }
          : {
              isSerializable: false,
              error: `The handler for job type "${jobType}" cannot run with forceKillOnTimeout: compiling it in a worker thread failed: ${message.error?.message}`,
            },
      );
    });
    worker.once('error', (err) =>
      done({ isSerializable: false, error: `The worker thread for job type "${jobType}" failed: ${err.message}` }),
    );
    worker.once('exit', (code) =>
      done({ isSerializable: false, error: `The worker thread for job type "${jobType}" exited with code ${code}` }),
    );
  });
}
