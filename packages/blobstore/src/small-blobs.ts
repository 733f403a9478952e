import { LRUCache } from 'lru-cache';

export interface SmallBlobCacheOptions {
  /** Blobs larger than this are never held (default 64 KiB). */
  maxBlobBytes?: number;
  /** Bytes held in all; the least recently used go first (default 16 MiB). */
  maxTotalBytes?: number;
}

/**
 * The bytes of small, often read blobs (poms, metadata, index files, small raw files), kept
 * in memory so a GET for one costs no file open, read and close. Those three round trips
 * through libuv's thread pool were most of a small GET's time (bench W1). Keys are
 * content addresses, so an entry can never go stale; the store drops an entry when its
 * key is written or deleted all the same, for keys that are not.
 */
export class SmallBlobCache {
  readonly maxBlobBytes: number;
  private readonly entries: LRUCache<string, Buffer>;

  constructor(opts: SmallBlobCacheOptions = {}) {
    this.maxBlobBytes = opts.maxBlobBytes ?? 64 * 1024;
    this.entries = new LRUCache<string, Buffer>({
      maxSize: opts.maxTotalBytes ?? 16 * 1024 * 1024,
      // An empty blob still takes a slot; lru-cache refuses a size of 0.
      sizeCalculation: (b) => Math.max(1, b.length),
    });
  }

  get(key: string): Buffer | undefined {
    return this.entries.get(key);
  }

  remember(key: string, bytes: Buffer): void {
    if (bytes.length <= this.maxBlobBytes) this.entries.set(key, bytes);
  }

  forget(key: string): void {
    this.entries.delete(key);
  }

  /** Bytes held now (for tests and a status line). */
  get heldBytes(): number {
    return this.entries.calculatedSize;
  }
}
