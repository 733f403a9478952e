import type { BlobDriver, BlobReader, BlobSource, ByteRange } from './types.js';

/**
 * The server's one handle on blob storage. It delegates to the current driver and,
 * while a storage move copies blobs to a new driver, falls back to the previous one
 * for reads of blobs not copied yet, so downloads never break mid-move.
 */
export class BlobStore implements BlobDriver {
  private fallback: BlobDriver | null = null;
  constructor(private current: BlobDriver) {}

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

  put(key: string, source: BlobSource, opts?: { signal?: AbortSignal }) {
    return this.current.put(key, source, opts);
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
