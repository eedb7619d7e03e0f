/**
 * Waitpoint token operations (DETAILS "Queue-level token operations"): created by the
 * application or a handler, completed by the application, awaited by any job with
 * `ctx.waitForToken`, timed out by the supervisor.
 */
import { randomUUID } from 'node:crypto';
import { parseTokenTimeout } from '../duration.js';
import { ValidationError } from '../errors.js';
import { checkKnownKeys, checkObject } from '../checks.js';
import { requireTokenId } from '../tokens.js';
import type { CreateTokenOptions, WaitToken } from '../types.js';
import { requireSizedJson, requireTags } from '../validation.js';
import type { OperationsContext } from './context.js';

/** @internal */
export class TokenOperations {
  constructor(private readonly ctx: OperationsContext) {}

  /** Creates an open token, owned by the job `jobId` when a handler creates it. */
  async create(options: CreateTokenOptions | undefined, jobId: number | null): Promise<{ id: string }> {
    if (options !== undefined) {
      checkObject(ValidationError, 'options', options, 'an object { timeout?, tags? }');
      checkKnownKeys(ValidationError, '', options, ['timeout', 'tags'], 'token options');
    }
    const now = this.ctx.clock.now();
    const timeoutAt =
      options?.timeout === undefined ? null : new Date(now.getTime() + parseTokenTimeout(options.timeout, 'timeout'));
    const tags = options?.tags === undefined ? [] : requireTags('tags', options.tags);
    const id = `wp_${randomUUID()}`;
    await this.ctx.backend.createToken({ id, jobId, timeoutAt, tags, now });
    return { id };
  }

  /** Completes an open token; its waiting job resumes. A token that is not open is left as it is. */
  async complete(tokenId: string, output: unknown): Promise<void> {
    requireTokenId('tokenId', tokenId);
    const value = output === undefined ? null : requireSizedJson('output', output, this.ctx.limits.maxPayloadBytes);
    await this.ctx.backend.completeToken({ tokenId, output: value, now: this.ctx.clock.now() });
  }

  async get(tokenId: string): Promise<WaitToken | null> {
    requireTokenId('tokenId', tokenId);
    return this.ctx.backend.getToken(tokenId);
  }

  /** Times out open tokens past their timeout; their jobs resume. Returns the count. */
  async expireTimedOut(): Promise<number> {
    return this.ctx.backend.expireTimedOutTokens(this.ctx.clock.now());
  }
}
