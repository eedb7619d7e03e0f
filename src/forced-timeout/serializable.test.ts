import { describe, expect, it } from 'vitest';
import { testHandlerSerialization, validateHandlerSerializable } from './serializable.js';

const outerClient = { send: (x: unknown) => x };
const outerConfig = { retries: 3 };

function check(handler: unknown) {
  return validateHandlerSerializable(handler, 'email');
}

describe('validateHandlerSerializable (SPEC §4.7)', () => {
  it('accepts self-contained handlers', () => {
    const handlers: unknown[] = [
      // Built from text: the test runner rewrites `import()` in test files.
      new Function(`return async (payload) => {
        const { createHash } = await import('node:crypto');
        return createHash('sha1').update(payload.to).digest('hex');
      }`)(),
      (payload: { to: string }) => {
        // eslint-disable-next-line @typescript-eslint/no-require-imports -- a handler may load its dependencies with require(), which the worker thread provides; this case shows it is accepted
        const { createHash } = require('node:crypto') as typeof import('node:crypto');
        return createHash('sha1').update(payload.to).digest('hex');
      },
      async function named(payload: number[], signal: AbortSignal) {
        let total = 0;
        for (const [i, value] of payload.entries()) {
          if (signal.aborted) break;
          total += value * i;
        }
        const {
          a,
          b: [c, d = 2],
          ...rest
        } = { a: 1, b: [3], e: 5 };
        const label = `sum ${total} ${a + c + d} ${JSON.stringify(rest)}`;
        return { label, ok: total > 0 ? true : false };
      },
      (payload: string) => {
        const helper = (s: string) => s.toUpperCase();
        function inner(x: string) {
          return helper(x);
        }
        class Local {
          value = 1;
          get twice() {
            return this.value * 2;
          }
          run() {
            return this.value;
          }
        }
        // @ts-expect-error `window` is not declared in Node: a typeof check of an optional global
        const isBrowser = typeof window !== 'undefined';
        const obj = {
          key: payload,
          method() {
            return this.key;
          },
          async other() {
            return 1;
          },
        };
        try {
          return [inner(payload), new Local().twice, obj.method(), /ab+c\/x/g.test(payload), isBrowser];
        } catch (err) {
          return String(err);
        }
      },
      (p: { n: number }) => p.n / 2 / 1,
    ];
    for (const h of handlers) expect(check(h), String(h)).toEqual({ isSerializable: true });
  });

  it('rejects captured outer variables, naming them', () => {
    const result = check(async (payload: unknown) => {
      await Promise.resolve(outerClient.send(payload));
      return outerConfig.retries;
    });
    expect(result.isSerializable).toBe(false);
    expect(result.error).toContain('"email"');
    expect(result.error).toContain('`outerClient`');
    expect(result.error).toContain('`outerConfig`');
  });

  it('finds captured variables inside template substitutions and ternaries', () => {
    expect(check((p: number) => `${p} ${outerConfig.retries}`).error).toContain('`outerConfig`');
    expect(check((p: boolean) => (p ? outerClient : null)).error).toContain('`outerClient`');
  });

  it('rejects `this`', () => {
    const result = check(function (this: { x: number }) {
      return this.x;
    });
    expect(result).toEqual({ isSerializable: false, error: expect.stringContaining('uses `this`') });
  });

  it('accepts regular expression literals, whatever characters they hold', () => {
    const handlers: unknown[] = [
      (p: string) => p.replace(/'/g, '"').replace(/"/g, "'"),
      (p: string) => /[/]\/\/ not a comment/.test(p),
      (p: string) => p.split(/[{}()[\]]/).length,
      (p: string) => p.match(/`(\w+)`/)?.[1],
      (p: boolean, s: string) => {
        if (p) /x/.test(s);
        return s.replace(/\/\*/g, '');
      },
    ];
    for (const h of handlers) expect(check(h), String(h)).toEqual({ isSerializable: true });
  });

  it('finds captures in default parameters and destructuring defaults, and only there where they escape', () => {
    const cases: [unknown, string][] = [
      [(_payload: unknown, _signal: AbortSignal, client = outerClient) => client, 'outerClient'],
      [({ retries = outerConfig.retries }: { retries?: number }) => retries, 'outerConfig'],
      [
        function (p: number = outerConfig.retries) {
          return p;
        },
        'outerConfig',
      ],
      [
        (p: { a?: unknown; list: unknown[] }) => {
          const { a = outerClient } = p;
          const [b = outerConfig] = p.list;
          return [a, b];
        },
        'outerClient`, `outerConfig',
      ],
      [
        (p: number) => {
          {
            const outerClient = p;
            // eslint-disable-next-line @typescript-eslint/no-unused-expressions -- the bare reference reads the block's own `outerClient`, which must not count as a capture
            outerClient;
          }
          return outerClient; // the block's declaration does not reach here
        },
        'outerClient',
      ],
    ];
    for (const [handler, names] of cases)
      expect(check(handler).error, String(handler)).toContain(`uses \`${names}\` from outside`);
    // A default naming an earlier parameter, or a variable of its own body, captures nothing.
    expect(check((a: number, b = a, { c = b } = {}) => a + b + c)).toEqual({ isSerializable: true });
  });

  it('tells `this` and `arguments` of the handler from those of functions and classes inside it', () => {
    const accepted = [
      new Function(`return function (p) { return arguments.length + p; }`)(),
      new Function(`return (p) => { function inner() { return [this, arguments]; } return inner(p); }`)(),
      new Function(
        `return (p) => { class A { x = this; static s = this; static { this.t = 1; } m() { return this.x; } } return new A().m(p); }`,
      )(),
    ];
    for (const h of accepted) expect(check(h), String(h)).toEqual({ isSerializable: true });
    const arrowArguments = new Function(`return () => arguments.length`)();
    expect(check(arrowArguments).error).toContain('uses `arguments` from outside');
    const rejectedThis = [
      new Function(`return function () { return [1].map(() => this); }`)(),
      new Function(`return (p = this) => p`)(),
      new Function(`return () => { class A { [this.key] = 1; } return A; }`)(),
    ];
    for (const h of rejectedThis) expect(check(h).error, String(h)).toContain('uses `this`');
  });

  it('rejects bound functions, native functions, classes and method shorthand', () => {
    expect(check(function f() {}.bind({})).error).toContain('bound function');
    expect(check(Math.max).error).toContain('native code');
    // eslint-disable-next-line @typescript-eslint/no-extraneous-class -- any class must be refused, an empty one included
    expect(check(class Handler {}).error).toContain('is a class');
    const obj = {
      handle(payload: unknown) {
        return payload;
      },
    };
    // eslint-disable-next-line @typescript-eslint/unbound-method -- a detached method-shorthand handler is the input under test
    expect(check(obj.handle).error).toContain('method shorthand');
    expect(check('not a function').error).toContain('expected a function, got string');
  });

  it('testHandlerSerialization compiles the handler in a real worker thread', async () => {
    await expect(testHandlerSerialization(async (p: number) => p + 1, 'ok')).resolves.toEqual({ isSerializable: true });
    const bad = await testHandlerSerialization(function (this: unknown) {
      return this;
    }, 'bad');
    expect(bad.isSerializable).toBe(false);
    expect(bad.error).toContain('uses `this`');
  });
});
