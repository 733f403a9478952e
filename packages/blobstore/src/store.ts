import { SmallBlobCache, type SmallBlobCacheOptions } from './small-blobs.js';
import type { BlobDriver, BlobReader, BlobSource, ByteRange } from './types.js';

/**
 * The server's one handle on blob storage. It delegates to the current driver and,
 * while a storage move copies blobs to a new driver, falls back to the previous one
 * for reads of blobs not copied yet, so downloads never break mid-move.
 */
export class BlobStore implements BlobDriver {
  private fallback: BlobDriver | null = null;
  private readonly small: SmallBlobCache;
  constructor(
    private current: BlobDriver,
    opts: { smallBlobs?: SmallBlobCacheOptions } = {},
  ) {
    this.small = new SmallBlobCache(opts.smallBlobs);
  }

  get name(): string {
    return this.current.name;
  }
  get driver(): BlobDriver {
    return this.current;
  }

  /** New writes go to `next`; reads try `next` first and then `previous` until `finishMove()`. */
  beginMove(next: BlobDriver): BlobDriver {
    const previous = this.current;
    this.fallback = previous;
    this.current = next;
    return previous;
  }
  finishMove(): void {
    this.fallback = null;
  }
  /** A cancelled or failed move: writes return to `previous`. */
  abortMove(previous: BlobDriver): void {
    this.current = previous;
    this.fallback = null;
  }

  async put(key: string, source: BlobSource, opts?: { signal?: AbortSignal }) {
    await this.current.put(key, source, opts);
    this.small.forget(key);
  }

  /** Objects of at most this many bytes are served by `readSmall`, from memory once read. */
  get smallBlobLimit(): number {
    return this.small.maxBlobBytes;
  }

  /**
   * The whole object as bytes, for one small enough to hold in memory whose `size` the caller
   * knows (from its asset row); null when it does not exist. One of at most `smallBlobLimit`
   * bytes is kept in memory once read: a small GET then costs no file open, read and close.
   * Throws when the stored object has another length, so a damaged blob is never served as
   * the promised file.
   */
  async readSmall(key: string, size: number): Promise<Buffer | null> {
    const held = this.small.get(key);
    if (held && held.length === size) return held;
    const stream = await this.get(key, size > 0 ? { range: { start: 0, end: size - 1 } } : undefined);
    if (!stream) return null;
    const chunks: Buffer[] = [];
    let length = 0;
    for await (const chunk of stream) {
      chunks.push(chunk as Buffer);
      length += (chunk as Buffer).length;
    }
    if (length !== size) throw new Error(`blob ${key} holds ${length} bytes where ${size} were expected`);
    const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, length);
    this.small.remember(key, bytes);
    return bytes;
  }
  async get(key: string, opts?: { range?: ByteRange; signal?: AbortSignal }) {
    return (await this.current.get(key, opts)) ?? (this.fallback ? this.fallback.get(key, opts) : null);
  }
  /**
   * A positional reader where the driver holding the object offers one (fs); null when none
   * does, for a missing object as for a driver without the capability (s3): get() decides then.
   */
  async openReader(key: string): Promise<BlobReader | null> {
    return (await this.current.openReader?.(key)) ?? (await this.fallback?.openReader?.(key)) ?? null;
  }
  async head(key: string) {
    return (await this.current.head(key)) ?? (this.fallback ? this.fallback.head(key) : null);
  }
  async delete(key: string) {
    await this.current.delete(key);
    await this.fallback?.delete(key);
    this.small.forget(key); // after: a read racing the delete may have just put it back
  }
  list(prefix?: string) {
    return this.current.list(prefix);
  }
  /** Presigning is a capability of the current driver only; undefined when it has none. */
  get presignGet() {
    const d = this.current;
    return d.presignGet ? d.presignGet.bind(d) : undefined;
  }
  async close() {
    await this.current.close?.();
    await this.fallback?.close?.();
  }
}
