/**
 * The documentation server's stdin, read in a bounded way: the protocol sends one JSON-RPC
 * message per line, and a line is held in memory until its newline arrives. A line past
 * MAX_MESSAGE_BYTES ends the server (see docs/cli.md "queue-cli mcp"): it cannot be parsed, so
 * no reply could name the request it carried.
 */
import { Transform, type TransformCallback } from 'node:stream';

/**
 * Longest message line the server reads: 4 MiB. The tools' own requests take a few hundred
 * bytes; the bound leaves room for any client's framing and still reads a search query far over
 * its own limit, which is then refused with a worded tool error.
 */
export const MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

/** Passes stdin through unchanged, failing once a line runs past `maxBytes` before its newline. */
export class BoundedLines extends Transform {
  /** Bytes of the current line received so far. */
  #lineBytes = 0;

  constructor(private readonly maxBytes = MAX_MESSAGE_BYTES) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    let start = 0;
    for (let newline = chunk.indexOf(10); newline !== -1; newline = chunk.indexOf(10, start)) {
      if (this.#lineBytes + newline - start > this.maxBytes) {
        callback(this.#tooLong());
        return;
      }
      this.#lineBytes = 0;
      start = newline + 1;
    }
    this.#lineBytes += chunk.length - start;
    if (this.#lineBytes > this.maxBytes) callback(this.#tooLong());
    else callback(null, chunk);
  }

  #tooLong(): Error {
    return new Error(
      `a message of more than ${this.maxBytes} bytes arrived on stdin; the documentation server reads messages of at most ${this.maxBytes} bytes, one per line, and stops`,
    );
  }
}
