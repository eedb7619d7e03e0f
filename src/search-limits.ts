/**
 * The bounds of the searches a listing can ask for that no index answers exactly, shared by both
 * backends so they find the same jobs. Internal: tests lower them to reach the bounds with few
 * jobs.
 */
export const searchLimits = {
  /**
   * `payloadContains` looks at the payloads of at most this many jobs: the newest ones that
   * match the query's other members.
   */
  payloadScan: 10_000,
  /**
   * `jobTypePrefix` on PostgreSQL reads at most this many distinct job types (one index probe
   * each), from the prefix on in the database's sort order.
   */
  prefixTypes: 1_000,
};

/** Longest `payloadContains` accepted, in characters. */
export const PAYLOAD_SEARCH_MAX_LENGTH = 200;

/**
 * `text` with the letters A–Z lowered and every other character kept, as Lua's string.lower
 * does: the case rule of a payload search on every backend, whatever the database's locale.
 */
export function lowerAscii(text: string): string {
  return text.replace(/[A-Z]/g, (c) => c.toLowerCase());
}
