import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';

/** A temp dir under /tmp that is removed on exit, even after a failure or Ctrl-C. */
export function tempDir(prefix) {
  const dir = mkdtempSync(join(tmpdir(), `trove-bench-${prefix}-`));
  const clean = () => rmSync(dir, { recursive: true, force: true });
  process.once('exit', clean);
  for (const sig of ['SIGINT', 'SIGTERM']) process.once(sig, () => process.exit(130));
  return { dir, clean };
}

/** Writes `bytes` of incompressible data (a random 1 MiB block, repeated) without holding it in memory. */
export async function makeFile(path, bytes) {
  const block = randomBytes(1024 * 1024);
  const out = createWriteStream(path);
  let left = bytes;
  while (left > 0) {
    const n = Math.min(left, block.length);
    if (!out.write(n === block.length ? block : block.subarray(0, n))) await once(out, 'drain');
    left -= n;
  }
  out.end();
  await once(out, 'finish');
  return path;
}
