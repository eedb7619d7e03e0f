/**
 * Refusing unknown option keys. A misspelt option (`maxAttempt`, `timeout`) would otherwise be
 * ignored silently and its default used, so every options object the library takes is checked
 * against its known keys, with a "did you mean" hint for a near miss. This module words the
 * refusal; checks.ts (checkKnownKeys) throws it with the caller's error class.
 */
import { describeValue } from './errors.js';

/**
 * Edit distance between two strings: insertions, deletions, substitutions and swaps of two
 * neighbouring characters (`teir` → `tier` is one edit).
 */
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The known key `key` most likely meant, or undefined when none is close: the same name in
 * another case, a known key it is a prefix or extension of, or one within a third of its length
 * in edits.
 */
export function nearestKey(key: string, known: readonly string[]): string | undefined {
  const lower = key.toLowerCase();
  const sameCase = known.find((k) => k.toLowerCase() === lower);
  if (sameCase) return sameCase;
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of known) {
    const c = candidate.toLowerCase();
    const affix = lower.length >= 3 && (c.startsWith(lower) || lower.startsWith(c));
    const distance = affix ? 1 : editDistance(lower, c);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return bestDistance <= Math.max(1, Math.floor(key.length / 3)) ? best : undefined;
}

/** What `findUnknownKey` reports: the path of the key and a message saying what to fix. */
export interface UnknownKey {
  field: string;
  message: string;
}

/**
 * The first key of `options` that is not in `known`, described for an error, or null. `field`
 * prefixes the path (`jobs[2]` → `jobs[2].maxAttempt`); `what` names the object in the message
 * ("job options"). Keys holding `undefined` count as absent, as spreading a partial object
 * produces them. `misplaced` names keys that belong elsewhere, with the reason.
 */
export function findUnknownKey(
  field: string,
  options: object,
  known: readonly string[],
  what: string,
  misplaced: Readonly<Record<string, string>> = {},
): UnknownKey | null {
  for (const key of Object.keys(options)) {
    if (known.includes(key)) continue;
    const value = (options as Record<string, unknown>)[key];
    if (value === undefined) continue;
    const path = field ? `${field}.${key}` : key;
    const reason = Object.hasOwn(misplaced, key) ? misplaced[key] : undefined;
    if (reason !== undefined) return { field: path, message: `Unexpected \`${path}\`: ${reason}` };
    const guess = nearestKey(key, known);
    const hint = guess === undefined ? '' : ` Did you mean \`${guess}\`?`;
    return {
      field: path,
      message: `Unknown option \`${path}\` in ${what}, got ${describeValue(value)}.${hint} Known options: ${known.join(', ')}`,
    };
  }
  return null;
}
