import type { Readable } from 'node:stream';
import { SmallBlobCache, type SmallBlobCacheOptions } from './small-blobs.js';
import type { BlobDriver, BlobReader, BlobSource, ByteRange } from './types.js';

/**
 * The server's one handle on blob storage. Outside a storage move it delegates to one driver.
 * During a move it holds two, and the rules that keep every read and write correct are here:
 *  - reads try the stores oldest first: the old store keeps every blob it had until the move is
 *    over, so a read never lands on a copy in progress; a blob written since the move began is
 *    only on the new store and is found there next;
 *  - writes go to the new store (and back to the old one while a cancelled move returns);
 *  - every read in flight is counted per driver, so the old store's blobs are removed only once
 *    nothing can still be streaming them (`drainReads`);
 *  - no presigned URLs while two stores are in play: a URL handed out now could point into a
 *    store about to be emptied, so downloads stream until the move is over.
 * Blob garbage collection goes through `collect`, which never removes a key that an upload in
 * flight has pinned (`pin`, held from `putIfAbsent` to the asset commit).
 */
export class BlobStore implements BlobDriver {
  private writeTo: BlobDriver;
  /** Oldest first; two entries only during a move. */
  private readFrom: BlobDriver[];
  private readonly small: SmallBlobCache;
  private readonly reads = new Map<BlobDriver, { n: number; idle: (() => void)[] }>();
  private readonly pins = new Map<string, number>();
  private pinsTaken = 0;
  private readonly pinWaiters = new Set<{ promise: Promise<void> }>();
  private readonly deleting = new Map<string, Promise<void>>();

  constructor(driver: BlobDriver, opts: { smallBlobs?: SmallBlobCacheOptions } = {}) {
    this.writeTo = driver;
    this.readFrom = [driver];
    this.small = new SmallBlobCache(opts.smallBlobs);
  }

  get name(): string {
    return this.writeTo.name;
  }
  /** The driver new blobs are written to. */
  get driver(): BlobDriver {
    return this.writeTo;
  }
  get moving(): boolean {
    return this.readFrom.length > 1;
  }

  /** Swaps the only driver (new credentials, or a new location with no blobs to move). Returns the old one. */
  replaceDriver(next: BlobDriver): BlobDriver {
    if (this.moving) throw new Error('cannot replace the blob driver during a move');
    const previous = this.writeTo;
    this.writeTo = next;
    this.readFrom = [next];
    return previous;
  }

  /** A move starts: writes go to `target`; reads try the current store first, then `target`. */
  beginMove(target: BlobDriver): void {
    if (this.moving) throw new Error('a move is already under way');
    this.readFrom = [this.writeTo, target];
    this.writeTo = target;
  }
  /** A cancelled or failed move: writes return to the old store; reads still find blobs written to the target. */
  returnWrites(): void {
    if (this.moving) this.writeTo = this.readFrom[0]!;
  }
  /** The move is over: `keep` (the target when done, the old store otherwise) is the only store again. */
  endMove(keep: BlobDriver): void {
    this.writeTo = keep;
    this.readFrom = [keep];
  }

  /** Resolves once no stream or reader on `driver` handed out by this store is still open. */
  drainReads(driver: BlobDriver): Promise<void> {
    const r = this.reads.get(driver);
    if (!r || r.n === 0) return Promise.resolve();
    return new Promise((resolve) => r.idle.push(resolve));
  }

  private track(driver: BlobDriver): () => void {
    let r = this.reads.get(driver);
    if (!r) this.reads.set(driver, (r = { n: 0, idle: [] }));
    r.n++;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      if (--r.n === 0) r.idle.splice(0).forEach((f) => f());
    };
  }

  /**
   * Holds `key` against garbage collection until the returned function is called. An upload
   * pins its blob before `putIfAbsent` and releases it after its asset row is committed.
   */
  pin(key: string): () => void {
    this.pinsTaken++;
    this.pins.set(key, (this.pins.get(key) ?? 0) + 1);
    let release!: () => void;
    const entry = { promise: new Promise<void>((r) => (release = r)) };
    this.pinWaiters.add(entry);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const n = this.pins.get(key)! - 1;
      if (n === 0) this.pins.delete(key);
      else this.pins.set(key, n);
      this.pinWaiters.delete(entry);
      release();
    };
  }

  /** Pins taken so far: unchanged across an await, no write began meanwhile. */
  get writesBegun(): number {
    return this.pinsTaken;
  }

  /** Waits until every pin held now is released: every write begun so far is committed (or gave up). */
  async settlePins(): Promise<void> {
    await Promise.all([...this.pinWaiters].map((e) => e.promise));
  }

  /** Stores `source` unless the write store already holds `key` (content addresses: same key, same bytes). */
  async putIfAbsent(key: string, source: BlobSource): Promise<void> {
    await this.deleting.get(key); // a collection of this key finishing: store it again after
    // Same key, same bytes: replacing a stored file with its twin is harmless, and one call fewer per new file.
    if ('path' in source && this.writeTo.putsFilesWithoutHead) return this.put(key, source);
    if (!(await this.writeTo.head(key))) await this.put(key, source);
  }

  /**
   * Garbage collection of one key: removes it unless it is pinned or `stillUnreferenced()` says
   * otherwise. The check and the claim happen in one synchronous step, so an upload that pins the
   * key afterwards waits for this deletion and writes the blob again. Answers whether it removed.
   */
  async collect(key: string, stillUnreferenced: () => boolean): Promise<boolean> {
    if (this.moving || this.pins.has(key) || this.deleting.has(key) || !stillUnreferenced()) return false;
    const driver = this.writeTo;
    const deletion = driver.delete(key).finally(() => {
      this.deleting.delete(key);
      this.small.forget(key);
    });
    this.deleting.set(key, deletion);
    await deletion;
    return true;
  }

  async put(key: string, source: BlobSource, opts?: { signal?: AbortSignal }) {
    await this.writeTo.put(key, source, opts);
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

  async get(key: string, opts?: { range?: ByteRange; signal?: AbortSignal }): Promise<Readable | null> {
    for (const d of this.readFrom) {
      const done = this.track(d); // counted before the open: a drain cannot slip between open and count
      let stream: Readable | null;
      try {
        stream = await d.get(key, opts);
      } catch (err) {
        done();
        throw err;
      }
      if (!stream) {
        done();
        continue;
      }
      if (stream.destroyed) done();
      else stream.once('close', done);
      return stream;
    }
    return null;
  }

  /**
   * A positional reader where the store holding the object offers one (fs); null when none does,
   * for a missing object as for a driver without the capability (s3): get() decides then.
   */
  async openReader(key: string): Promise<BlobReader | null> {
    for (const d of this.readFrom) {
      if (!d.openReader) {
        // This store cannot give a reader; if it holds the blob, get() must serve it from here.
        if (this.moving && (await d.head(key))) return null;
        continue;
      }
      const done = this.track(d);
      let reader: BlobReader | null;
      try {
        reader = await d.openReader(key);
      } catch (err) {
        done();
        throw err;
      }
      if (!reader) {
        done();
        continue;
      }
      const inner = reader;
      return {
        read: (into, length, position) => inner.read(into, length, position),
        close() {
          inner.close();
          done();
        },
      };
    }
    return null;
  }

  async head(key: string) {
    for (const d of this.readFrom) {
      const s = await d.head(key);
      if (s) return s;
    }
    return null;
  }

  /** Removes the key from every store in play (not used by uploads; GC uses `collect`). */
  async delete(key: string) {
    for (const d of new Set([...this.readFrom, this.writeTo])) await d.delete(key);
    this.small.forget(key); // after: a read racing the delete may have just put it back
  }

  list(prefix?: string) {
    return this.writeTo.list(prefix);
  }

  /** Presigning is a capability of the one current driver, and is off during a move (see above). */
  get presignGet() {
    const d = this.writeTo;
    return d.presignGet && !this.moving ? d.presignGet.bind(d) : undefined;
  }

  async close() {
    for (const d of new Set([...this.readFrom, this.writeTo])) await d.close?.();
  }
}
