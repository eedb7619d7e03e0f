/**
 * Waitpoint tokens (DETAILS "Queue-level token operations"): created by the application or a
 * handler, completed by the application, awaited by any job with `ctx.waitForToken`.
 */
import { randomUUID } from 'node:crypto';
import type { WaitStore } from './backend.js';
import { parseTokenTimeout } from './duration.js';
import { checkKnownKeys, checkObject, ensure } from './checks.js';
import { ValidationError } from './errors.js';
import type { Clock, CreateTokenOptions, WaitToken } from './types.js';
import { requireJson, requireTags } from './validation.js';

const TOKEN_ID = /^wp_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function requireTokenId(field: string, value: unknown): string {
  ensure(ValidationError, typeof value === 'string' && TOKEN_ID.test(value), field, 'a token id (wp_<uuid>)', value);
  return value;
}

/** Creates an open token, optionally owned by the job that creates it. */
export async function createToken(
  store: WaitStore,
  clock: Clock,
  options: CreateTokenOptions | undefined,
  jobId: number | null,
): Promise<{ id: string }> {
  if (options !== undefined) {
    checkObject(ValidationError, 'options', options, 'an object { timeout?, tags? }');
    checkKnownKeys(ValidationError, '', options, ['timeout', 'tags'], 'token options');
  }
  const now = clock.now();
  const timeoutAt = options?.timeout === undefined ? null : new Date(now.getTime() + parseTokenTimeout(options.timeout, 'timeout'));
  const tags = options?.tags === undefined ? [] : requireTags('tags', options.tags);
  const id = `wp_${randomUUID()}`;
  await store.createToken({ id, jobId, timeoutAt, tags, now });
  return { id };
}

/** Completes an open token; its waiting job resumes. A token that is not open is left as it is. */
export async function completeToken(store: WaitStore, clock: Clock, tokenId: string, output: unknown): Promise<void> {
  requireTokenId('tokenId', tokenId);
  const value = output === undefined ? null : requireJson('output', output);
  await store.completeToken({ tokenId, output: value, now: clock.now() });
}

export function getToken(store: WaitStore, tokenId: string): Promise<WaitToken | null> {
  requireTokenId('tokenId', tokenId);
  return store.getToken(tokenId);
}
