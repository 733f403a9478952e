import { createHash, randomUUID, type Hash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, open, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';

export type HashAlgorithm = 'sha256' | 'sha1' | 'md5' | 'sha512';

export interface SpooledFile {
  /** Absolute path of the complete, fsynced file. A driver's `put({path})` may move it away. */
  path: string;
  size: number;
  hashes: { sha256: string } & Partial<Record<HashAlgorithm, string>>;
  /** Removes the spool file if it is still there. Safe to call twice. */
  dispose(): Promise<void>;
}

/** The body crossed `limit`; nothing of it is kept. */
export class UploadTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`body exceeds the limit of ${limit} bytes`);
    this.name = 'UploadTooLargeError';
  }
}

/** The client sent fewer bytes than it announced, or went away. */
export class UploadIncompleteError extends Error {
  constructor(message = 'upload ended before the announced length') {
    super(message);
    this.name = 'UploadIncompleteError';
  }
}

export interface ReceiveOptions {
  maxBytes: number;
  /** Hashes computed in the same pass. sha256 is always computed; every extra one costs throughput (see BENCH.md). */
  algorithms?: HashAlgorithm[];
  /** The announced Content-Length, when there is one: over the limit fails before a byte is read. */
  expectedSize?: number;
  signal?: AbortSignal;
}

/** Counts and hashes bytes as they pass, and stops the stream the moment the limit is crossed. */
class HashingMeter extends Transform {
  size = 0;
  private readonly hashes: Map<HashAlgorithm, Hash>;
  constructor(
    algorithms: HashAlgorithm[],
    private readonly limit: number,
  ) {
    super();
    this.hashes = new Map(algorithms.map((a) => [a, createHash(a)]));
  }
  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    this.size += chunk.length;
    if (this.size > this.limit) return cb(new UploadTooLargeError(this.limit));
    for (const h of this.hashes.values()) h.update(chunk);
    cb(null, chunk);
  }
  digests(): Record<string, string> {
    return Object.fromEntries([...this.hashes].map(([a, h]) => [a, h.digest('hex')]));
  }
}

/**
 * The upload spool: every upload is written here first, hashed on the way,
 * fsynced, and only then handed to a blob driver. A file in the spool is never
 * visible to readers, so a crash at any moment leaves at worst a stray spool
 * file, which `init()` removes at the next start.
 */
export class Spool {
  constructor(readonly dir: string) {}

  /** Creates the directory and removes files a crash left behind. Call once at start, before any upload. */
  async init(): Promise<number> {
    await mkdir(this.dir, { recursive: true });
    const leftovers = await readdir(this.dir);
    await Promise.all(leftovers.map((f) => rm(join(this.dir, f), { force: true, recursive: true })));
    return leftovers.length;
  }

  async receive(body: Readable, opts: ReceiveOptions): Promise<SpooledFile> {
    if (opts.expectedSize !== undefined && opts.expectedSize > opts.maxBytes) {
      body.resume(); // drain nothing into memory; the caller answers 413 and closes
      throw new UploadTooLargeError(opts.maxBytes);
    }
    const algorithms = [...new Set<HashAlgorithm>(['sha256', ...(opts.algorithms ?? [])])];
    const path = join(this.dir, `${randomUUID()}.part`);
    const meter = new HashingMeter(algorithms, opts.maxBytes);
    const dispose = () => rm(path, { force: true });
    try {
      await pipeline(body, meter, createWriteStream(path, { flags: 'wx' }), { signal: opts.signal });
      if (opts.expectedSize !== undefined && meter.size !== opts.expectedSize) throw new UploadIncompleteError();
      // fsync before anyone may point at this content: an acknowledged upload must survive a crash.
      const fh = await open(path, 'r+');
      try {
        await fh.sync();
      } finally {
        await fh.close();
      }
    } catch (err) {
      await dispose();
      if (err instanceof UploadTooLargeError || err instanceof UploadIncompleteError) throw err;
      if (isAbort(err)) throw new UploadIncompleteError('upload aborted by the client');
      throw err;
    }
    const hashes = meter.digests() as SpooledFile['hashes'];
    return { path, size: meter.size, hashes, dispose };
  }
}

function isAbort(err: unknown): boolean {
  const code = (err as { code?: string })?.code;
  return code === 'ECONNRESET' || code === 'ERR_STREAM_PREMATURE_CLOSE' || code === 'ABORT_ERR' || (err as Error)?.message === 'aborted';
}
