import { spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { gzip as gzipCb, constants } from 'node:zlib';

const gzipAsync = promisify(gzipCb);

/** gzip on libuv's thread pool, so the event loop keeps serving while an index compresses. */
export const gzip = (data: Buffer): Promise<Buffer> => gzipAsync(data, { level: constants.Z_BEST_COMPRESSION });

/**
 * xz through xz-utils' `xz` (a dependency of dpkg, so present wherever apt repositories are
 * built). No maintained pure-JS/WebAssembly xz *encoder* exists on npm; the native-addon one
 * (@napi-rs/lzma) ships per-platform binaries as optional dependencies that pnpm did not link here.
 * Runs in its own process: compression never blocks the event loop.
 */
export function xz(data: Buffer): Promise<Buffer> {
  // Preset 6, but with a dictionary no larger than the input: the same output for a segment of
  // tens of KiB, without xz setting up (and every decoder allocating) preset 6's 8 MiB; that set-up
  // was two thirds of the time a 64 KiB segment took.
  const dict = Math.min(8 << 20, Math.max(4096, data.length));
  return new Promise((resolve, reject) => {
    const child = spawn('xz', ['--compress', '--stdout', '--threads=1', `--lzma2=preset=6,dict=${dict}`, '--check=crc64'], { stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let err = '';
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => (err += d));
    child.on('error', (e) => reject(new Error(`cannot run xz: ${e.message}`)));
    child.on('close', (code) => (code === 0 ? resolve(Buffer.concat(out)) : reject(new Error(`xz exited with ${code}: ${err.trim()}`))));
    child.stdin.on('error', () => {}); // reported through 'close'
    child.stdin.end(data);
  });
}

/** Runs `fn` over `items` with at most `limit` calls in flight; results keep the input order. */
export async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}
