import { describe, expect, it } from 'vitest';
import { BoundedLines } from './mcp-input.js';

/** Writes `chunks` through a BoundedLines of `max` bytes: what came out, and the error if any. */
async function through(max: number, chunks: string[]): Promise<{ out: string; error?: Error }> {
  const lines = new BoundedLines(max);
  let out = '';
  lines.on('data', (d: Buffer) => (out += d.toString()));
  return new Promise((resolve) => {
    lines.once('error', (error) => resolve({ out, error }));
    lines.once('end', () => resolve({ out }));
    for (const chunk of chunks) lines.write(Buffer.from(chunk));
    lines.end();
  });
}

describe('BoundedLines', () => {
  it('passes lines of at most the limit through unchanged, however the chunks cut them', async () => {
    const chunks = ['0123456789\n01234', '56789\n', '\n', 'abc\ndef'];
    expect(await through(10, chunks)).toEqual({ out: chunks.join('') });
  });

  it('fails once a line runs past the limit, within a chunk or across chunks, before its newline', async () => {
    for (const chunks of [['01234567890\n'], ['0123456', '7890'], ['ok\n012345', '67890', '\n']]) {
      const { error } = await through(10, chunks);
      expect(error?.message).toContain('a message of more than 10 bytes arrived on stdin');
    }
  });
});
