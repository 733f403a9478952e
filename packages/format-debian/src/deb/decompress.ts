import { PassThrough, Transform, Readable, type TransformCallback } from 'node:stream';
import { createGunzip } from 'node:zlib';
import type { Decompress as ZstdDecompress } from 'fzstd';
import { ArchiveError } from './ar.js';

/** Loaded with the first zstd member (most packages use xz or gzip), not at start. */
let fzstd: Promise<typeof import('fzstd')> | undefined;

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

/**
 * zstd through fzstd, fed in small pieces. fzstd allocates every frame's declared window up front,
 * so each frame header is checked (by ZstdFrames) before the bytes that hold it reach the decoder,
 * not only the first one. Its output is counted as the decoder makes it: a run-length block of 4
 * bytes makes a whole block (128 KiB), so one piece of input could make gigabytes, synchronously,
 * before a byte cap after this stage saw any of it.
 */
class ZstdStream extends Transform {
  private readonly dec: ZstdDecompress;
  private readonly frames = new ZstdFrames();
  private made = 0;
  constructor(Decompress: typeof ZstdDecompress, limit: number, what: string) {
    super();
    this.dec = new Decompress((data) => {
      this.made += data.byteLength;
      if (this.made > limit) throw new ArchiveError(`${what} is larger than ${limit} bytes`);
      this.push(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
    });
  }
  override _transform(chunk: Buffer, _e: BufferEncoding, cb: TransformCallback): void {
    try {
      this.frames.feed(chunk);
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

/**
 * Walks the frame layout of a zstd stream (RFC 8878 3.1) as bytes arrive: frame headers,
 * block headers (to find where the next frame starts), skippable frames. Each frame's
 * window size (3.1.1.1) is checked against MAX_ZSTD_WINDOW.
 */
class ZstdFrames {
  private pending = Buffer.alloc(0);
  private skip = 0;
  private inFrame = false;
  private checksum = false;
  private first = true;

  feed(chunk: Buffer): void {
    let data = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    for (;;) {
      const n = Math.min(this.skip, data.length);
      data = data.subarray(n);
      this.skip -= n;
      if (this.skip) break;
      const used = this.inFrame ? this.block(data) : this.frameHeader(data);
      if (!used) break;
      data = data.subarray(used);
    }
    this.pending = Buffer.from(data);
  }

  /** Bytes of the frame header at the start of `d`, 0 when more are needed. */
  private frameHeader(d: Buffer): number {
    if (d.length < 4) return 0;
    const magic = d.readUInt32LE(0);
    if ((magic & 0xfffffff0) === 0x184d2a50) {
      if (d.length < 8) return 0;
      this.skip = d.readUInt32LE(4);
      return 8;
    }
    if (magic !== 0xfd2fb528) throw new ArchiveError(this.first ? 'control member is not zstd data' : 'invalid zstd data: bad frame magic');
    if (d.length < 5) return 0;
    const fhd = d[4]!;
    const singleSegment = (fhd >> 5) & 1;
    const dictBytes = [0, 1, 2, 4][fhd & 3]!;
    const fcsFlag = fhd >> 6;
    const fcsBytes = fcsFlag ? 1 << fcsFlag : singleSegment;
    const size = 5 + (singleSegment ? 0 : 1) + dictBytes + fcsBytes;
    if (d.length < size) return 0;
    let window: number;
    if (!singleSegment) {
      const wd = d[5]!;
      const base = 2 ** (10 + (wd >> 3));
      window = base + (base / 8) * (wd & 7);
    } else {
      const at = 5 + dictBytes;
      window = fcsBytes === 8 ? Number(d.readBigUInt64LE(at)) : d.readUIntLE(at, fcsBytes) + (fcsBytes === 2 ? 256 : 0);
    }
    if (window > MAX_ZSTD_WINDOW) throw new ArchiveError('zstd window of the control member is too large');
    this.first = false;
    this.inFrame = true;
    this.checksum = ((fhd >> 2) & 1) === 1;
    return size;
  }

  /** Bytes of the block header at the start of `d` (its content is skipped), 0 when more are needed. */
  private block(d: Buffer): number {
    if (d.length < 3) return 0;
    const h = d.readUIntLE(0, 3);
    const type = (h >> 1) & 3;
    if (type === 3) throw new ArchiveError('invalid zstd data: reserved block type');
    this.skip = type === 1 ? 1 : h >> 3; // an RLE block holds one byte
    if (h & 1) {
      this.inFrame = false;
      if (this.checksum) this.skip += 4;
    }
    return 3;
  }
}

type Stage = Transform | ((source: AsyncIterable<Buffer>) => AsyncIterable<Uint8Array>);

/**
 * The decompression stage for a control member's suffix (deb(5): none, .gz, .xz, .zst), for use inside
 * one pipeline, before a `ByteLimit(limit, what)`; zstd applies the limit itself, as it decodes.
 */
export async function decompressorFor(suffix: string, limit: number, what: string): Promise<Stage> {
  switch (suffix) {
    case '':
      return new PassThrough();
    case '.gz':
      return createGunzip();
    case '.zst':
      return new ZstdStream((await (fzstd ??= import('fzstd'))).Decompress, limit, what);
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
