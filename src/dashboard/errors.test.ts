import { describe, expect, it } from 'vitest';
import { NotFoundError, StoreUnavailableError, ValidationError } from '../errors.js';
import { errorResponse } from './errors.js';

async function answer(err: unknown): Promise<{ status: number; body: unknown }> {
  const response = errorResponse(err);
  return { status: response.status, body: await response.json() };
}

describe('errorResponse', () => {
  it('answers a ValidationError with 400 and its message', async () => {
    expect(await answer(new ValidationError('limit', 'Expected `limit` to be at most 200, got 500'))).toEqual({
      status: 400,
      body: { error: 'Expected `limit` to be at most 200, got 500' },
    });
  });

  it('answers a NotFoundError with 404 and its message', async () => {
    expect(await answer(new NotFoundError('Job 7 not found'))).toEqual({
      status: 404,
      body: { error: 'Job 7 not found' },
    });
  });

  it('answers an unreachable store with 503 and its code, a closed queue with 500', async () => {
    expect(await answer(new StoreUnavailableError('connection', 'PostgreSQL is unreachable'))).toEqual({
      status: 503,
      body: { error: 'PostgreSQL is unreachable', code: 'STORE_UNAVAILABLE' },
    });
    expect((await answer(new StoreUnavailableError('closed', 'The queue is closed'))).status).toBe(500);
  });

  it('answers any other error with 500', async () => {
    expect(await answer(new Error('boom'))).toEqual({ status: 500, body: { error: 'boom' } });
  });
});
