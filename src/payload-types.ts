/**
 * Payload types: a payload is stored as JSON, so what a handler receives is the JSON form of
 * what `addJob` was given (a `Date` comes back as its ISO string). `JsonForm` says what that
 * form is; `StorablePayloads` refuses, when the queue is created, a payload map holding what
 * `addJob` refuses at run time (functions, symbols, bigints; see requireJson in validation.ts).
 * Re-exported by types.ts.
 */

/** Members JSON.stringify leaves out of an object, and writes as null in an array. */
type Dropped = undefined | symbol | ((...args: never[]) => unknown);

/** `any` (an untyped payload map), which every conditional type below must leave as it is. */
type IsAny<T> = 0 extends 1 & T ? true : false;

/**
 * A value that is its own JSON form. The types below return such a type as it is, before looking
 * inside it: a recursive JSON type (`type Json = ... | Json[]`) would otherwise be unfolded
 * without end.
 */
type JsonSafe = string | number | boolean | null | readonly JsonSafe[] | { readonly [key: string]: JsonSafe };

/** Keys of `T` that JSON may leave out: optional ones, and those whose value may be dropped. */
type MaybeDroppedKey<T, K extends keyof T> =
  IsAny<T[K]> extends true
    ? never
    : // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- the usual test for an optional key
      {} extends Pick<T, K>
      ? K
      : [Extract<T[K], Dropped>] extends [never]
        ? never
        : K;

/** Keys of `T` that JSON writes when present: string keys whose value is not always dropped. */
type KeptKey<T, K extends keyof T> = K extends symbol ? never : [Exclude<T[K], Dropped>] extends [never] ? never : K;

/** Flattens an intersection of object types into one object type, for readable hovers. */
type Flatten<T> = { [K in keyof T]: T[K] } & {};

type JsonObject<T> = Flatten<
  { [K in keyof T as Exclude<KeptKey<T, K>, MaybeDroppedKey<T, K>>]-?: JsonForm<T[K]> } & {
    [K in keyof T as Extract<KeptKey<T, K>, MaybeDroppedKey<T, K>>]?: JsonForm<Exclude<T[K], Dropped>> | undefined;
  }
>;

/** An array item: what JSON.stringify writes as null stays in the array as null. */
type JsonItem<T> = T extends Dropped ? null : JsonForm<T>;

/**
 * The JSON form of `T`: the type of `JSON.parse(JSON.stringify(value))` for a value of type
 * `T`, which is what a handler receives as its payload and what `getJob` returns. A value with
 * `toJSON()` becomes the JSON form of what it returns (`Date` becomes `string`); object members
 * that are functions, symbols or undefined are left out (a member that may be undefined becomes
 * optional); in arrays they become null. `any` and `unknown` stay as they are.
 * @example
 * type Reminder = { userId: number; when: Date };
 * type Received = JsonForm<Reminder>; // { userId: number; when: string }
 * const handler = async (payload: JsonForm<Reminder>) => remind(payload.userId, new Date(payload.when));
 */
export type JsonForm<T> =
  IsAny<T> extends true
    ? // eslint-disable-next-line @typescript-eslint/no-explicit-any -- an untyped payload stays untyped
      any
    : T extends JsonSafe
      ? T
      : T extends { toJSON(): infer J }
        ? JsonForm<J>
        : T extends Dropped | bigint
          ? never
          : T extends readonly unknown[]
            ? { [I in keyof T]: JsonItem<T[I]> }
            : T extends object
              ? JsonObject<T>
              : T;

/**
 * `T` where every part `addJob` refuses at run time is `never`: functions (methods included, so
 * a class instance or a Map is refused too), symbols and bigints, at any depth. Values with
 * `toJSON()` (Date) are kept; undefined is kept inside objects (JSON leaves the member out) and
 * arrays (it becomes null), but not as the whole payload.
 */
type StorablePayload<T> = IsAny<T> extends true ? T : StorablePart<Exclude<T, undefined>>;

type StorablePart<T> =
  IsAny<T> extends true
    ? T
    : T extends JsonSafe
      ? T
      : T extends bigint | symbol | ((...args: never[]) => unknown)
        ? never
        : T extends { toJSON(): unknown }
          ? T
          : T extends object
            ? { [K in keyof T]: StorablePart<T[K]> }
            : T;

/**
 * The constraint `initJobQueue` puts on its payload map: each job type's payload must be
 * something `addJob` can store, so a map holding a function, a symbol or a bigint is refused
 * where it is given, not by the first `addJob`.
 */
export type StorablePayloads<P> = { [K in keyof P]: StorablePayload<P[K]> };

/**
 * What a handler receives for a payload of type `T`: its JSON form, or `any` when the queue is
 * untyped (its map says `unknown` or `any`), so an annotated handler is accepted there.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type HandlerPayload<T> = unknown extends T ? any : JsonForm<T>;
