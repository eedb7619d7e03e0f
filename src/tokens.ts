/**
 * Waitpoint token ids. The token operations (create, complete, expire) are in
 * operations/tokens.ts.
 */
import { ensure } from './checks.js';
import { ValidationError } from './errors.js';

const TOKEN_ID = /^wp_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function requireTokenId(field: string, value: unknown): string {
  ensure(ValidationError, typeof value === 'string' && TOKEN_ID.test(value), field, 'a token id (wp_<uuid>)', value);
  return value;
}
