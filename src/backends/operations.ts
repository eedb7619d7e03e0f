/**
 * How both backends are composed. Each area module (jobs, processing, manage, cron, waits)
 * exports its Backend operations as plain functions that take the backend's context first; the
 * backend binds them to its one context and spreads them into the Backend next to its
 * connection members. Nothing is forwarded by hand, so a Backend method added to an area module
 * needs no edit in the backend's index (the Backend type says when one is missing).
 */

/** Operations of one or more areas: functions taking the context first. */
// The arguments are whatever each operation declares; `any` lets every signature in.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Operations<C> = Record<string, (ctx: C, ...args: any[]) => unknown>;

/** The operations with their context argument taken away. */
export type Bound<T> = {
  [K in keyof T]: T[K] extends (ctx: never, ...args: infer A) => infer R ? (...args: A) => R : never;
};

/** Binds every operation to `ctx`. */
export function bindOperations<C, T extends Operations<C>>(ctx: C, operations: T): Bound<T> {
  return Object.fromEntries(
    Object.entries(operations).map(([name, operation]) => [name, (...args: unknown[]) => operation(ctx, ...args)]),
  ) as Bound<T>;
}

/**
 * Binds every operation to a context that is known only later (the PostgreSQL schema a
 * search_path leads to): each call first waits for `context()`. Every operation is async.
 */
export function deferOperations<C, T extends Operations<C>>(context: () => Promise<C>, operations: T): Bound<T> {
  return Object.fromEntries(
    Object.entries(operations).map(([name, operation]) => [
      name,
      async (...args: unknown[]) => operation(await context(), ...args),
    ]),
  ) as Bound<T>;
}
