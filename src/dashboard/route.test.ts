import { describe, expect, it } from 'vitest';
import { ValidationError } from '../errors.js';
import { MAX_BODY_BYTES, readJsonBody } from './route.js';

const post = (body: string | null, headers: Record<string, string> = {}) =>
  new Request('http://dashboard.test/api/x', { method: 'POST', body, headers });

/** A body of `total` bytes streamed in 64 KiB chunks, counting the bytes the reader pulled. */
function streamed(total: number): { request: Request; pulled: () => number } {
  let sent = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= total) {
        controller.close();
        return;
      }
      const chunk = new Uint8Array(Math.min(65536, total - sent)).fill(0x20);
      sent += chunk.byteLength;
      controller.enqueue(chunk);
    },
  });
  const init: RequestInit & { duplex: 'half' } = { method: 'POST', body: stream, duplex: 'half' };
  const request = new Request('http://dashboard.test/api/x', init);
  return { request, pulled: () => sent };
}

describe('readJsonBody', () => {
  it('returns a JSON object body', async () => {
    expect(await readJsonBody(post('{"payload":{"to":"a@b.c"},"priority":3}'))).toEqual({
      payload: { to: 'a@b.c' },
      priority: 3,
    });
  });

  it.each([
    ['no body', null, 'Expected `body` to be JSON'],
    ['text that is not JSON', 'priority=3', 'Expected `body` to be JSON, got "priority=3"'],
    ['a JSON array', '[1]', 'Expected `body` to be a JSON object, got an array of length 1'],
    ['JSON null', 'null', 'Expected `body` to be a JSON object, got null'],
  ])('refuses %s with a ValidationError naming body', async (_, body, message) => {
    const reading = readJsonBody(post(body));
    await expect(reading).rejects.toBeInstanceOf(ValidationError);
    await expect(readJsonBody(post(body))).rejects.toThrow(message);
  });

  it('refuses a declared Content-Length over the limit without reading the body', async () => {
    // The body itself is valid JSON: only the declared length can refuse it.
    const big = post('{}', { 'content-length': String(MAX_BODY_BYTES + 1) });
    await expect(readJsonBody(big)).rejects.toThrow(
      `Expected \`body\` to be at most ${MAX_BODY_BYTES} bytes, got ${MAX_BODY_BYTES + 1} or more`,
    );
    expect(big.bodyUsed).toBe(false);
  });

  it('stops reading a streamed body as soon as it passes the limit', async () => {
    const { request, pulled } = streamed(MAX_BODY_BYTES * 4);
    await expect(readJsonBody(request)).rejects.toThrow(`at most ${MAX_BODY_BYTES} bytes`);
    expect(pulled()).toBeLessThan(MAX_BODY_BYTES + 3 * 65536);
  });
});
