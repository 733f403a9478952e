import { eq, sql } from 'drizzle-orm';
import type { TroveDb } from '../db/open.js';
import { generations } from '../db/schema.js';

/** What a counter covers: `access` = users, permissions, repositories, read tokens, publish sessions; `assets` = asset rows. */
export type GenerationName = 'access' | 'assets';
export type GenerationValues = Record<GenerationName, number>;

/** Anything that can run a drizzle statement: the database or a transaction. */
type Writer = Pick<TroveDb, 'update'>;

/**
 * The database-visible change counters behind every read-path cache (docs/decisions.md,
 * "Read-path caches"). Every write that can change an access decision or an asset lookup bumps
 * its counter in the same transaction as the write, so another server process on the same
 * database drops its entries on its next request, and this one at once.
 *
 * Reading the counters is one primary-key SELECT, done at most once per turn of the event loop:
 * the requests of one turn were all received before it began, so none of them can have been sent
 * after a write this read could miss (the write's answer would have had to reach its client
 * first). A timer callback can read the counters in the same turn just before requests are
 * received, so a value is also never reused after 1 ms. A bump in this process forgets the value
 * read, so the next lookup reads again.
 */
export class Generations {
  private readonly readStmt;
  /** Prepared once per counter: every asset write bumps one. */
  private readonly bumpStmt;
  private seen: GenerationValues | null = null;
  private seenAt = 0;
  private readonly forget = () => {
    this.seen = null;
  };

  constructor(private readonly db: TroveDb) {
    this.readStmt = db.select({ access: generations.access, assets: generations.assets }).from(generations).where(eq(generations.id, 1)).prepare();
    const bumpOf = (name: GenerationName) =>
      db
        .update(generations)
        .set({ [name]: sql`${generations[name]} + 1` })
        .where(eq(generations.id, 1))
        .prepare();
    this.bumpStmt = { access: bumpOf('access'), assets: bumpOf('assets') };
  }

  /** The counters as they are now (the row is created by core's migration 0002). */
  current(): GenerationValues {
    if (this.seen && performance.now() - this.seenAt < 1) return this.seen;
    const row = this.readStmt.get();
    if (!row) throw new Error('the generations row is missing: core migration 0002 did not run');
    if (!this.seen) setImmediate(this.forget);
    this.seen = row;
    this.seenAt = performance.now();
    return row;
  }

  /**
   * Moves `name` on, inside the transaction the change is written in, so both commit together.
   * The statement is prepared on the database's one connection, which is the transaction's too:
   * `_tx` only says, at the call site, which transaction that is.
   */
  bump(name: GenerationName, _tx?: Writer): void {
    this.bumpStmt[name].run();
    this.seen = null;
  }
}

/**
 * A bounded map whose entries hold only while one generation counter stays where it was when
 * they were stored. `null` is a value (a remembered "not there"); `undefined` means not cached.
 * Past `maxEntries` the oldest entry goes first.
 */
export class GenerationCache<V> {
  private readonly map = new Map<string, V | null>();
  private generation = -1;

  constructor(
    private readonly generations: Generations,
    private readonly name: GenerationName,
    private readonly maxEntries: number,
  ) {}

  /** The cached value, null for a cached absence, undefined when the lookup must go to the database. */
  get(key: string): V | null | undefined {
    const g = this.generations.current()[this.name];
    if (g !== this.generation) {
      this.map.clear();
      this.generation = g;
      return undefined;
    }
    return this.map.get(key);
  }

  /** The generation `get` last saw: pass it to `set` when the lookup awaited something in between. */
  stamp(): number {
    return this.generation;
  }

  /**
   * Stores the answer of a lookup made after `get`. With `stamp` (from `stamp()` right after that
   * `get`), an answer that took a while (a password check) is dropped when a write happened since.
   */
  set(key: string, value: V | null, stamp = this.generation): V | null {
    if (stamp !== this.generation || stamp !== this.generations.current()[this.name]) return value;
    if (this.map.size >= this.maxEntries) this.map.delete(this.map.keys().next().value!);
    this.map.set(key, value);
    return value;
  }

  /** `get`, or `load` and remember its answer (`undefined` from `load` is remembered as absent). */
  through(key: string, load: () => V | undefined): V | undefined {
    const hit = this.get(key);
    if (hit !== undefined) return hit ?? undefined;
    return this.set(key, load() ?? null) ?? undefined;
  }

  delete(key: string): void {
    this.map.delete(key);
  }

  get size(): number {
    return this.map.size;
  }
}
