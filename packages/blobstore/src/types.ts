import type { Readable } from 'node:stream';

/** Inclusive byte range, as in an HTTP `Range: bytes=start-end` header. */
export interface ByteRange {
  start: number;
  end: number;
}

export interface BlobStat {
  size: number;
}

/**
 * Positional reads of one stored object, for a server that copies into its own reused
 * buffers: a stream allocates a fresh buffer per chunk, 4,096 per GiB at 256 KiB, and
 * that churn kept V8 collecting without pause in big downloads (bench W3).
 */
export interface BlobReader {
  /** Reads up to `length` bytes at `position` into the start of `into`; 0 at the end of the object. */
  read(into: Buffer, length: number, position: number): Promise<number>;
  /** Releases the object once no read is in flight (an fd closed under a pending read could be reused). Idempotent. */
  close(): void;
}

/**
 * What a driver stores: a finished local file (the spool), or a stream of known or unknown size.
 * A driver that keeps the file itself (fs: a rename) first calls `sync` when there is one (a spool
 * file received with `durable: false`), and `onMoved` after it took the file, so its owner need not
 * remove it. A driver that copies the bytes elsewhere needs neither. `release`, present only while the
 * file is not yet durable, closes it without flushing it, for a driver that makes many files durable
 * at once (fs: a flush of the whole filesystem); `sync` still works after it.
 */
export type BlobSource = { path: string; sync?: () => Promise<void>; release?: () => Promise<void>; onMoved?: () => void } | { stream: Readable; size?: number };

/**
 * One storage backend. A driver is one file implementing this interface
 * (`drivers/fs.ts`, `drivers/s3.ts`). Keys are opaque, slash-separated strings;
 * Trove uses content addresses (`sha256/ab/<hex>`), so a put of an existing
 * key with the same content is harmless.
 */
export interface BlobDriver {
  readonly name: string;
  /** Stores `source` under `key`. Readers never see a partial object: it appears whole or not at all. */
  put(key: string, source: BlobSource, opts?: { signal?: AbortSignal }): Promise<void>;
  /** A stream of the object (or of `range`), or null when it does not exist. */
  get(key: string, opts?: { range?: ByteRange; signal?: AbortSignal }): Promise<Readable | null>;
  head(key: string): Promise<BlobStat | null>;
  /**
   * Optional capability (fs): storing a local file under a key that already exists costs about
   * what asking for the key does (a rename), so `putIfAbsent` puts without asking first.
   */
  readonly putsFilesWithoutHead?: boolean;
  /** Optional capability (fs): positional reads instead of a stream; null when the object does not exist. */
  openReader?(key: string): Promise<BlobReader | null>;
  /** Deleting a missing key is not an error. */
  delete(key: string): Promise<void>;
  /** Optional capability (s3): many keys in few requests (DeleteObjects takes 1,000 at a time). */
  deleteMany?(keys: string[]): Promise<void>;
  /** Every key under `prefix`, in no particular order, with its last write time where the driver knows it. */
  list(prefix?: string): AsyncIterable<{ key: string; size: number; modified?: Date }>;
  /** Optional capability: a time-limited URL a client can download from directly. */
  presignGet?(key: string, opts: { expiresInSeconds: number; filename?: string; contentType?: string }): Promise<string>;
  close?(): Promise<void>;
}
