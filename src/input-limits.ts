/**
 * Bounds on the size of one call's input, so that no single request holds a store (or the
 * process) for long: the tags of a job or a filter, and the bytes of a payload. Past them both
 * backends refuse alike, with a ValidationError naming the field and the size, before anything
 * is written (docs/jobs.md "Limits"). The checks that apply them are in validation.ts.
 */
import { MAX_JSON_DEPTH } from './storable.js';

/**
 * Most tags one call takes in one list: a job's `tags` and `dependsOn.tags`, an edit's `tags`,
 * a tag filter's values, `getJobsByTags`, a token's `tags`. Each tag is stored with the job and
 * indexed (one index entry per tag on PostgreSQL, one set per tag on Redis), and every listing
 * sends them back.
 */
export const MAX_TAGS = 100;

/** `maxPayloadBytes` when the queue configuration gives none: 1 MiB. */
export const DEFAULT_MAX_PAYLOAD_BYTES = 1_048_576;

/**
 * The largest `maxPayloadBytes` a queue takes: 256 MiB. Past it PostgreSQL's jsonb (255 MiB at
 * most) and Node.js strings (about 512 MiB) reach their own limits.
 */
export const MAX_PAYLOAD_BYTES_SETTING = 268_435_456;

/** The input limits of one queue, resolved from its configuration. */
export interface InputLimits {
  /** Most bytes of a payload (or token output) as JSON in UTF-8. */
  maxPayloadBytes: number;
}

/** Bounds of the UTF-8 bytes of a value's JSON text: `low` at most, `high` at least the real count. */
export interface JsonByteBounds {
  low: number;
  high: number;
}

/** Most bytes of one UTF-16 unit in JSON text: `\u001f` (an escaped control character). */
const MOST_BYTES_PER_UNIT = 6;
/** Most characters of a finite number in JSON text (`-2.2250738585072014e-308`). */
const MOST_NUMBER_CHARS = 25;

/**
 * Bounds of the UTF-8 bytes of `JSON.stringify(value)`, from the lengths of its strings and keys
 * alone, without reading any string: at least one byte per UTF-16 unit (escapes only add), at
 * most six. A payload whose upper bound is within the limit needs no serializing to be checked;
 * one whose lower bound is past it is refused unread. The walk stops once `low` is past `max`
 * and below MAX_JSON_DEPTH (`high` is then Infinity), so a huge or circular value costs little
 * here: requireJson refuses what is not JSON.
 */
export function jsonByteBounds(value: unknown, max: number, depth = 0): JsonByteBounds {
  let v = value;
  if (v !== null && typeof v === 'object' && typeof (v as { toJSON?: unknown }).toJSON === 'function') {
    v = (v as { toJSON: () => unknown }).toJSON();
  }
  if (typeof v === 'string') return { low: v.length + 2, high: v.length * MOST_BYTES_PER_UNIT + 2 };
  if (typeof v === 'number') return { low: 1, high: MOST_NUMBER_CHARS };
  if (v === null || typeof v !== 'object') return { low: 1, high: 5 };
  if (depth >= MAX_JSON_DEPTH) return { low: 1, high: Infinity };
  // The brackets, then each member with the comma before it (none before the first).
  let low = 1;
  let high = 2;
  // Each member: its comma (or the closing bracket's share), the key as "key": in an object.
  const add = (item: unknown, keyLength: number | null) => {
    const inner = jsonByteBounds(item, max - low, depth + 1);
    low += 1 + (keyLength === null ? 0 : keyLength + 3) + inner.low;
    high += 1 + (keyLength === null ? 0 : keyLength * MOST_BYTES_PER_UNIT + 3) + inner.high;
  };
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length && low <= max; i++) add(v[i], null);
  } else {
    for (const key in v) {
      if (low > max) break;
      const item = (v as Record<string, unknown>)[key];
      if (item !== undefined) add(item, key.length);
    }
  }
  if (low > max) return { low, high: Infinity };
  return low === 1 ? { low: 2, high: 2 } : { low, high };
}

/**
 * The UTF-8 bytes of `JSON.stringify(value)` for a value requireJson accepted, or null when
 * they are at most `max` (the exact count is then needed only near `max`).
 */
export function jsonBytesOver(value: unknown, max: number): number | null {
  const text = JSON.stringify(value);
  // Three bytes per UTF-16 unit at most: short text cannot be over.
  if (text.length * 3 <= max) return null;
  const bytes = Buffer.byteLength(text, 'utf8');
  return bytes > max ? bytes : null;
}
