/**
 * Waitpoint token ids. The token operations (create, complete, expire) are in
 * operations/tokens.ts.
 */
import { ValidationError, describeValue } from './errors.js';

const TOKEN_ID = /^wp_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function requireTokenId(field: string, value: unknown): string {
  if (typeof value !== 'string' || !TOKEN_ID.test(value)) {
    throw new ValidationError(field, `Expected \`${field}\` to be a token id (wp_<uuid>), got ${describeValue(value)}`);
  }
  return value;
}
