import { createHash, randomUUID, type Hash } from 'node:crypto';
import { close, fsync, open, writev } from 'node:fs';
import { mkdir, readdir, rm, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { Writable, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

export type HashAlgorithm = 'sha256' | 'sha1' | 'md5' | 'sha512';

export interface SpooledFile {
  /** Absolute path of the complete, fsynced file. A driver's `put({path})` may move it away. */
  path: string;
  size: number;
  hashes: { sha256: string } & Partial<Record<HashAlgorithm, string>>;
  /** Removes the spool file if it is still there. Safe to call twice. */
  dispose(): Promise<void>;
  /**
   * Makes the file durable if it is not yet (`ReceiveOptions.durable: false`); a no-op otherwise.
   * A blob driver that keeps the file itself calls it (BlobSource.sync) before the file gets its name.
   */
  sync(): Promise<void>;
  /** A blob driver moved the file away (BlobSource.onMoved): `dispose` then has nothing to remove. */
  movedAway(): void;
  /** False until the file is flushed (`ReceiveOptions.durable: false`, before `sync`). */
  readonly durable: boolean;
  /** Closes the file's descriptor without flushing it (BlobSource.release); `sync` still works after it. */
  release(): Promise<void>;
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
  /**
   * false: do not fsync at the end of the body; `SpooledFile.sync()` does it later. A mirror
   * download then frees its slot at the source without waiting on the disk (its commit, which
   * runs many at a time, pays the flush). Default true.
   */
  durable?: boolean;
  /** The announced Content-Length, when there is one: over the limit fails before a byte is read. */
  expectedSize?: number;
  /** Called as bytes arrive (once per batch of chunks): a stall watchdog re-arms on it, with no stream of its own in between. */
  onData?: () => void;
  signal?: AbortSignal;
}

/**
 * Bytes gathered before one write: a socket hands over 64 KiB at a time, and one write (a
 * syscall and a round trip through libuv's thread pool, with its two context switches) per
 * 64 KiB cost a sixth of an upload's CPU on the one core the server gets (bench W4).
 */
const BATCH = 1024 * 1024;

/**
 * The spool file's writer: counts, hashes and writes in one stream (no Transform in front of a
 * file stream), fails the moment the limit is crossed, and fsyncs in `_final`, so the stream
 * finishing means the file is durable. Chunks are hashed as they arrive and written in batches;
 * one batch is written while the next fills, and a full batch waits for the write in flight,
 * which is the backpressure on the socket. Memory: at most two batches and the stream's buffer.
 */
class SpoolWriter extends Writable {
  size = 0;
  private readonly hashes: Map<HashAlgorithm, Hash>;
  private batch: Buffer[] = [];
  private batchBytes = 0;
  private position = 0;
  /** The write in flight; settles with its error instead of rejecting, so nothing goes unhandled. */
  private writing: Promise<Error | null> = Promise.resolve(null);

  constructor(
    private readonly fd: number,
    algorithms: HashAlgorithm[],
    private readonly limit: number,
    private readonly durable: boolean,
    private readonly onData?: () => void,
  ) {
    super({ highWaterMark: BATCH });
    this.hashes = new Map(algorithms.map((a) => [a, createHash(a)]));
  }

  override _writev(chunks: { chunk: Buffer }[], cb: (err?: Error | null) => void): void {
    this.onData?.();
    for (const { chunk } of chunks) {
      this.size += chunk.length;
      if (this.size > this.limit) return cb(new UploadTooLargeError(this.limit));
      for (const h of this.hashes.values()) h.update(chunk);
      this.batch.push(chunk);
      this.batchBytes += chunk.length;
    }
    if (this.batchBytes < BATCH) return cb();
    void this.writing.then((err) => {
      if (err) return cb(err);
      this.writing = this.flush();
      cb();
    });
  }

  override _final(cb: (err?: Error | null) => void): void {
    void this.writing.then(async (err) => {
      if (!err && this.batchBytes > 0) err = await (this.writing = this.flush());
      if (err || !this.durable) return cb(err);
      // fsync before anyone may point at this content: an acknowledged upload must survive a crash.
      fsync(this.fd, (syncErr) => cb(syncErr));
    });
  }

  override _destroy(err: Error | null, cb: (err?: Error | null) => void): void {
    // Never close under a write in flight: the fd number could be reused by another open meanwhile.
    void this.writing.then(() => close(this.fd, (closeErr) => cb(err ?? closeErr)));
  }

  digests(): Record<string, string> {
    return Object.fromEntries([...this.hashes].map(([a, h]) => [a, h.digest('hex')]));
  }

  private flush(): Promise<Error | null> {
    const bufs = this.batch;
    const at = this.position;
    this.position += this.batchBytes;
    this.batch = [];
    this.batchBytes = 0;
    return writeAll(this.fd, bufs, at).then(
      () => null,
      (err: Error) => err,
    );
  }
}

/** writev until every byte is down: a regular file may take fewer bytes than asked (full disk, signal). */
async function writeAll(fd: number, bufs: Buffer[], position: number): Promise<void> {
  while (bufs.length > 0) {
    let n = await new Promise<number>((resolve, reject) => writev(fd, bufs, position, (err, written) => (err ? reject(err) : resolve(written))));
    position += n;
    while (bufs.length > 0 && n >= bufs[0]!.length) n -= bufs.shift()!.length;
    if (n > 0) bufs[0] = bufs[0]!.subarray(n);
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
    const path = this.newPath();
    const fd = await openExclusive(path);
    const durable = opts.durable ?? true;
    const writer = new SpoolWriter(fd, algorithmsOf(opts), opts.maxBytes, durable, opts.onData);
    const file = spooledFile(path, durable);
    try {
      await pipeline(body, writer, { signal: opts.signal });
      if (opts.expectedSize !== undefined && writer.size !== opts.expectedSize) throw new UploadIncompleteError();
    } catch (err) {
      await file.dispose();
      if (err instanceof UploadTooLargeError || err instanceof UploadIncompleteError) throw err;
      if (isAbort(err)) throw new UploadIncompleteError('upload aborted by the client');
      throw err;
    }
    return file.complete(writer.size, writer.digests() as SpooledFile['hashes']);
  }

  /**
   * Bytes already in memory (a small download, a file the server writes itself) into the spool:
   * hashed, written with one call and no stream in between. Same guarantees as `receive`. With
   * `durable: false` the file stays open until `sync()` or `dispose()`, so the flush costs no
   * second open.
   */
  async receiveBytes(chunks: readonly Uint8Array[], opts: Omit<ReceiveOptions, 'expectedSize' | 'signal'>): Promise<SpooledFile> {
    const size = chunks.reduce((n, c) => n + c.byteLength, 0);
    if (size > opts.maxBytes) throw new UploadTooLargeError(opts.maxBytes);
    const hashes = new Map(algorithmsOf(opts).map((a) => [a, createHash(a)]));
    for (const h of hashes.values()) for (const c of chunks) h.update(c);
    const path = this.newPath();
    const fd = await openExclusive(path);
    const durable = opts.durable ?? true;
    const file = spooledFile(path, durable, durable ? undefined : fd);
    try {
      await writeAll(fd, chunks.map((c) => Buffer.from(c.buffer, c.byteOffset, c.byteLength)), 0);
      if (durable) await new Promise<void>((resolve, reject) => fsync(fd, (err) => (err ? reject(err) : resolve())));
    } catch (err) {
      if (durable) await closeFd(fd);
      await file.dispose();
      throw err;
    }
    if (durable) await closeFd(fd);
    return file.complete(size, Object.fromEntries([...hashes].map(([a, h]) => [a, h.digest('hex')])) as SpooledFile['hashes']);
  }

  private newPath(): string {
    return join(this.dir, `${randomUUID()}.part`);
  }
}

const algorithmsOf = (opts: Pick<ReceiveOptions, 'algorithms'>): HashAlgorithm[] => [...new Set<HashAlgorithm>(['sha256', ...(opts.algorithms ?? [])])];

const openExclusive = (path: string) => new Promise<number>((resolve, reject) => open(path, 'wx', (err, n) => (err ? reject(err) : resolve(n))));
const closeFd = (fd: number) => new Promise<void>((resolve, reject) => close(fd, (err) => (err ? reject(err) : resolve())));

/**
 * The spool file's lifecycle. `openFd` is a file left open for its later flush (receiveBytes,
 * not durable): `sync` flushes and closes it, `dispose` closes it before the unlink.
 */
function spooledFile(path: string, durable: boolean, openFd?: number) {
  let fd = openFd;
  // A file a driver moved away costs no call at all: a failed unlink per file was a twentieth of a mirror import's CPU.
  let gone = false;
  let synced = durable;
  const release = async () => {
    if (fd === undefined) return;
    const n = fd;
    fd = undefined;
    await closeFd(n);
  };
  const dispose = async () => {
    if (gone) return;
    await release();
    await unlink(path).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err;
    });
    gone = true;
  };
  const movedAway = () => {
    gone = true;
    void release().catch(() => {}); // a failed close of a file already flushed and renamed changes nothing
  };
  const sync = async () => {
    if (synced) return;
    if (fd !== undefined) {
      const n = fd;
      await new Promise<void>((resolve, reject) => fsync(n, (err) => (err ? reject(err) : resolve())));
      await release();
    } else await fsyncFile(path);
    synced = true;
  };
  return {
    dispose,
    complete: (size: number, hashes: SpooledFile['hashes']): SpooledFile => ({
      path,
      size,
      hashes,
      dispose,
      movedAway,
      sync,
      release,
      get durable() {
        return synced;
      },
    }),
  };
}

function fsyncFile(path: string): Promise<void> {
  return new Promise((resolve, reject) =>
    open(path, 'r', (openErr, fd) => {
      if (openErr) return reject(openErr);
      fsync(fd, (syncErr) => close(fd, (closeErr) => (syncErr ?? closeErr ? reject(syncErr ?? closeErr) : resolve())));
    }),
  );
}

function isAbort(err: unknown): boolean {
  const code = (err as { code?: string })?.code;
  return code === 'ECONNRESET' || code === 'ERR_STREAM_PREMATURE_CLOSE' || code === 'ABORT_ERR' || (err as Error)?.message === 'aborted';
}
