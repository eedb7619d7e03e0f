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

/**
 * A lower bound of the UTF-8 bytes of `JSON.stringify(value)`, from the lengths of its strings
 * and keys alone (UTF-8 takes at least one byte per UTF-16 unit; escapes only add), without
 * reading any string. The walk stops once past `max` and below MAX_JSON_DEPTH, so a huge or
 * circular value costs little here: requireJson refuses what is not JSON.
 */
export function jsonBytesFloor(value: unknown, max: number, depth = 0): number {
  let v = value;
  if (v !== null && typeof v === 'object' && typeof (v as { toJSON?: unknown }).toJSON === 'function') {
    v = (v as { toJSON: () => unknown }).toJSON();
  }
  if (typeof v === 'string') return v.length + 2;
  if (v === null || typeof v !== 'object' || depth >= MAX_JSON_DEPTH) return 1;
  // The brackets, then each member with the comma before it (none before the first).
  let total = 1;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length && total <= max; i++) total += 1 + jsonBytesFloor(v[i], max - total, depth + 1);
  } else {
    for (const key in v) {
      if (total > max) break;
      const item = (v as Record<string, unknown>)[key];
      // "key": is the key's length and three bytes.
      if (item !== undefined) total += 1 + key.length + 3 + jsonBytesFloor(item, max - total, depth + 1);
    }
  }
  return total === 1 ? 2 : total;
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
