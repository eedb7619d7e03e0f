import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dataDirPath } from './pglite-lock.js';

describe('dataDirPath', () => {
  it('reads a dataDir as PGlite does: a path or file:// is a directory on disk, memory and browser stores are not', () => {
    expect(dataDirPath('./queue-data')).toBe(resolve('queue-data'));
    expect(dataDirPath('file:///var/queue')).toBe('/var/queue');
    expect(dataDirPath('file://rel/dir')).toBe(resolve('rel/dir'));
    for (const none of [undefined, '', 'memory://', 'memory://x', 'idb://queue', 'opfs-ahp://q']) {
      expect(dataDirPath(none)).toBeUndefined();
    }
  });
});
