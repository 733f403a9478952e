import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { Spool } from '../src/index.js';

export const newSpool = async () => {
  const s = new Spool(mkdtempSync(join(tmpdir(), 'trove-spool-')));
  await s.init();
  return s;
};

/** `b` as a stream of `size`-byte chunks, the way a socket hands a body over. */
export const chunks = (b: Buffer, size = 4096) => Readable.from(Array.from({ length: Math.ceil(b.length / size) }, (_, i) => b.subarray(i * size, (i + 1) * size)));

/** A body that never ends, counting what it has produced, so a test can see how soon a limit stopped reading it. */
export function endlessBody(chunk = 65536) {
  const body = {
    produced: 0,
    stream: new Readable({
      read() {
        body.produced += chunk;
        this.push(Buffer.alloc(chunk));
      },
    }),
  };
  return body;
}
