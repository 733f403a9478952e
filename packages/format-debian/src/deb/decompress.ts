import { Transform, Readable, type TransformCallback } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { Decompress as ZstdDecompress } from 'fzstd';
import { ArchiveError } from './ar.js';

/** Largest zstd window accepted: fzstd allocates the declared window up front, so a crafted header could ask for 2 GiB. */
const MAX_ZSTD_WINDOW = 8 * 1024 * 1024;

/** Fails the stream once more than `limit` bytes passed: a decompression bomb stops at the cap. */
export class ByteLimit extends Transform {
  private seen = 0;
  constructor(
    private readonly limit: number,
    private readonly what: string,
  ) {
    super();
  }
  override _transform(chunk: Buffer, _e: BufferEncoding, cb: TransformCallback): void {
    this.seen += chunk.length;
    if (this.seen > this.limit) return cb(new ArchiveError(`${this.what} is larger than ${this.limit} bytes`));
    cb(null, chunk);
  }
}

/** zstd through fzstd, fed in small pieces so each push yields at most a block or two of output. */
class ZstdStream extends Transform {
  private readonly dec = new ZstdDecompress((data) => {
    this.push(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
  });
  private checkedHeader = false;
  override _transform(chunk: Buffer, _e: BufferEncoding, cb: TransformCallback): void {
    try {
      if (!this.checkedHeader) {
        checkZstdWindow(chunk);
        this.checkedHeader = true;
      }
      for (let i = 0; i < chunk.length; i += 16384) this.dec.push(chunk.subarray(i, Math.min(chunk.length, i + 16384)));
      cb();
    } catch (err) {
      cb(err instanceof ArchiveError ? err : new ArchiveError(`invalid zstd data: ${(err as Error).message}`));
    }
  }
  override _flush(cb: TransformCallback): void {
    try {
      this.dec.push(new Uint8Array(0), true);
      cb();
    } catch (err) {
      cb(new ArchiveError(`invalid zstd data: ${(err as Error).message}`));
    }
  }
}

/** Reads the first frame's window size (RFC 8878 3.1.1.1) before fzstd allocates it. */
function checkZstdWindow(first: Buffer): void {
  if (first.length < 6 || first.readUInt32LE(0) !== 0xfd2fb528) throw new ArchiveError('control member is not zstd data');
  const fhd = first[4]!;
  const singleSegment = (fhd >> 5) & 1;
  let window: number;
  if (!singleSegment) {
    const wd = first[5]!;
    const base = 2 ** (10 + (wd >> 3));
    window = base + (base / 8) * (wd & 7);
  } else {
    const fcsFlag = fhd >> 6;
    const dictBytes = [0, 1, 2, 4][fhd & 3]!;
    const fcsBytes = [1, 2, 4, 8][fcsFlag]!;
    const at = 5 + dictBytes;
    if (first.length < at + fcsBytes) throw new ArchiveError('truncated zstd frame header');
    window = fcsBytes === 8 ? Number(first.readBigUInt64LE(at)) : first.readUIntLE(at, fcsBytes) + (fcsBytes === 2 ? 256 : 0);
  }
  if (window > MAX_ZSTD_WINDOW) throw new ArchiveError('zstd window of the control member is too large');
}

type Stage = Transform | ((source: AsyncIterable<Buffer>) => AsyncIterable<Uint8Array>);

/** The decompression stage for a control member's suffix (deb(5): none, .gz, .xz, .zst), for use inside one pipeline. */
export function decompressorFor(suffix: string): Stage {
  switch (suffix) {
    case '':
      return new Transform({ transform: (c, _e, cb) => cb(null, c) });
    case '.gz':
      return createGunzip();
    case '.zst':
      return new ZstdStream();
    case '.xz':
      return xzStage;
    default:
      throw new ArchiveError(`unsupported control member compression ${suffix}`);
  }
}

/** xz through the WebAssembly decoder (loaded where used), pulled chunk by chunk so the byte cap after it stops it early. */
async function* xzStage(source: AsyncIterable<Buffer>): AsyncIterable<Uint8Array> {
  // xz-decompress is CommonJS: plain Node exposes its names only on `default` (vitest hides this).
  const mod = await import('xz-decompress');
  const { XzReadableStream } = mod.default ?? mod;
  const input = Readable.from(source);
  const web = new XzReadableStream(Readable.toWeb(input) as ReadableStream<Uint8Array>);
  const reader = web.getReader();
  try {
    for (;;) {
      let r: Awaited<ReturnType<typeof reader.read>>;
      try {
        r = await reader.read();
      } catch (err) {
        throw new ArchiveError(`invalid xz data: ${(err as Error).message}`);
      }
      if (r.done) return;
      yield r.value;
    }
  } finally {
    reader.cancel().catch(() => {});
    input.destroy();
  }
}
