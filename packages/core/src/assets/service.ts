import { and, asc, eq, gt, lt, sql, inArray } from 'drizzle-orm';
import { contentKey, type BlobStore, type Spool, type SpooledFile } from '@trove/blobstore';
import { GenerationCache, type Generations } from '../cache/generations.js';
import type { TroveDb } from '../db/open.js';
import { assets, repos, type AssetRow, type RepoRow } from '../db/schema.js';
import { conflict, isTroveError } from '../errors.js';
import { nextModified } from '../http/last-modified.js';

export type CommitStatus = 'created' | 'identical' | 'replaced';

/** What to do when the path already holds different bytes; decided inside the write transaction. */
export type OnExisting = 'replace' | 'conflict' | ((existing: AssetRow) => 'replace' | 'conflict');

export interface CommitInput {
  repo: RepoRow;
  path: string;
  file: SpooledFile;
  contentType: string;
  uploader: string;
  onExisting: OnExisting;
  /** Message of the 409 when the rule says conflict. */
  conflictMessage?: string;
  /** Code of that 409: `asset_exists` unless the format says the file is an immutable release. */
  conflictCode?: 'asset_exists' | 'release_immutable';
  /**
   * An import (the mirror), which fills a repository its source has locked. Any other write is
   * refused once the repository is locked, even one whose request began before the lock.
   */
  importing?: boolean;
  /**
   * Runs inside the transaction that writes the asset row, or that finds it already holding these
   * bytes: what it writes there commits with the file or not at all (the mirror records its imports
   * so). A throw rolls the transaction back.
   */
  inCommit?: (asset: AssetRow) => void;
}

type CommitResult = { status: CommitStatus; asset: AssetRow };
type WriteTx = Parameters<Parameters<TroveDb['transaction']>[0]>[0];

/** How long an import waits for others to share its transaction (see `AssetService.writeSoon`). */
const IMPORT_WINDOW_MS = 3;
/** Writes one transaction takes at most before it is written without waiting longer. */
const MAX_SHARED_WRITES = 256;

/** An asset write waiting for the next shared transaction (`AssetService.writeSoon`). */
interface QueuedWrite {
  write: (tx: WriteTx) => CommitResult;
  resolve: (result: CommitResult) => void;
  reject: (err: unknown) => void;
}

export interface AssetPage {
  items: AssetRow[];
  /** Path of the last item when more may follow. */
  last: string | null;
}

/**
 * Files in repositories. An upload becomes an asset in three steps, in this order,
 * so a crash at any moment never leaves an asset pointing at a missing or partial blob:
 *  1. the spool holds the complete, fsynced file (done by the caller),
 *  2. the blob store stores it under its content address (atomic per driver),
 *  3. one SQLite transaction inserts or updates the asset row.
 * A crash between 2 and 3 leaves an unreferenced blob, which is harmless.
 * The immutability rule runs inside the transaction, so two concurrent uploads of
 * the same path cannot both win.
 */
export class AssetService {
  /** Prepared once: this lookup runs on every artifact GET. */
  private readonly byPath;
  /** The repository's lock as it is inside the write's transaction. */
  private readonly lockOf;
  /**
   * The insert of a new file, prepared once: built per call, drizzle's query building and
   * SQLite's prepare were a tenth of a mirror import's CPU per small file (bench/mirror-import.mjs).
   */
  private readonly insertRow;
  /**
   * Rows (and absences: clients probe many missing paths) by repository and path, until the next
   * asset write anywhere (the `assets` generation, bumped in the write's own transaction).
   */
  private readonly rows;
  /** Asset writes waiting for their shared transaction (`writeSoon`). */
  private queued: QueuedWrite[] = [];
  /** The end of this turn of the event loop, when a write that may not wait is queued. */
  private flushNow: NodeJS.Immediate | undefined;
  /** The end of the imports' window, while only imports are queued. */
  private flushLater: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: TroveDb,
    private readonly blobs: BlobStore,
    private readonly spool: Spool,
    private readonly generations: Generations,
  ) {
    this.rows = new GenerationCache<AssetRow>(generations, 'assets', 20_000);
    this.byPath = db
      .select()
      .from(assets)
      .where(and(eq(assets.repoId, sql.placeholder('repoId')), eq(assets.path, sql.placeholder('path'))))
      .prepare();
    this.lockOf = db.select({ lockedBy: repos.lockedBy }).from(repos).where(eq(repos.id, sql.placeholder('repoId'))).prepare();
    const p = (name: string) => sql.placeholder(name);
    this.insertRow = db
      .insert(assets)
      .values({ repoId: p('repoId'), path: p('path'), createdAt: p('createdAt'), blobKey: p('blobKey'), size: p('size'), sha256: p('sha256'), sha1: p('sha1'), md5: p('md5'), contentType: p('contentType'), uploader: p('uploader'), updatedAt: p('updatedAt') })
      .returning()
      .prepare();
  }

  get(repo: RepoRow, path: string): AssetRow | undefined {
    return this.rows.through(`${repo.id}\0${path}`, () => this.byPath.get({ repoId: repo.id, path }));
  }

  private decide(existing: AssetRow, input: CommitInput): 'replace' | 'conflict' {
    return typeof input.onExisting === 'function' ? input.onExisting(existing) : input.onExisting;
  }

  async commit(input: CommitInput): Promise<CommitResult> {
    const { repo, path, file } = input;
    try {
      // Cheap early answers before touching the blob store.
      const before = this.get(repo, path);
      if (before && before.sha256 === file.hashes.sha256) {
        const found = input.inCommit ? this.identicalInCommit(input) : before;
        if (found) return { status: 'identical', asset: found };
      }
      if (before && this.decide(before, input) === 'conflict') throw conflict(input.conflictMessage ?? `${path} already exists with different content`, input.conflictCode ?? 'asset_exists');

      const key = contentKey(file.hashes.sha256);
      // Pinned from the blob write to the commit: garbage collection never takes a blob in between.
      const release = this.blobs.pin(key);
      try {
        await this.blobs.putIfAbsent(key, { path: file.path, sync: () => file.sync(), ...(file.durable ? {} : { release: () => file.release() }), onMoved: () => file.movedAway() });
        return await this.writeSoon((tx) => this.write(tx, input, key), input.importing === true);
      } finally {
        release();
      }
    } finally {
      await file.dispose();
    }
  }

  /** The row, when it still holds the file's bytes, with `inCommit` run in the transaction that read it. */
  private identicalInCommit(input: CommitInput): AssetRow | undefined {
    return this.db.transaction(() => {
      const now = this.byPath.get({ repoId: input.repo.id, path: input.path });
      if (now?.sha256 !== input.file.hashes.sha256) return undefined;
      input.inCommit!(now);
      return now;
    });
  }

  /**
   * Runs `write` in a transaction shared with the other asset writes of this turn of the event loop,
   * or, when only imports are waiting, of the next IMPORT_WINDOW_MS: a bulk import's files commit a
   * few per millisecond, each in a turn of its own. Per file, a transaction's WAL pages were about a
   * tenth of a small file's mirror import; with the window (and the mirror's own for its records) a
   * 10,000-file sync ran 4-15% faster in alternating runs (bench/mirror-import.mjs).
   * An upload never waits for it. A write refuses (a TroveError, the conflict rule) before it changes
   * anything, so a refusal fails only its own commit; any other error rolls back the whole transaction
   * and fails all of them. The promises settle once the transaction has committed: nothing is
   * acknowledged before it is written.
   */
  private writeSoon(write: (tx: WriteTx) => CommitResult, canWait: boolean): Promise<CommitResult> {
    return new Promise((resolve, reject) => {
      const waiting = this.queued.push({ write, resolve, reject });
      if (this.flushNow) return;
      if (canWait && waiting < MAX_SHARED_WRITES) this.flushLater ??= setTimeout(() => this.writeQueued(), IMPORT_WINDOW_MS);
      else this.flushNow = setImmediate(() => this.writeQueued());
    });
  }

  private writeQueued(): void {
    clearImmediate(this.flushNow);
    clearTimeout(this.flushLater);
    this.flushNow = this.flushLater = undefined;
    const batch = this.queued;
    this.queued = [];
    const outcomes: ({ ok: true; result: CommitResult } | { ok: false; error: unknown })[] = [];
    try {
      this.db.transaction(
        (tx) => {
          for (const q of batch) {
            try {
              outcomes.push({ ok: true, result: q.write(tx) });
            } catch (error) {
              if (!isTroveError(error)) throw error;
              outcomes.push({ ok: false, error });
            }
          }
        },
        { behavior: 'immediate' },
      );
    } catch (error) {
      for (const q of batch) q.reject(error);
      return;
    }
    batch.forEach((q, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) q.resolve(outcome.result);
      else q.reject(outcome.error);
    });
  }

  /**
   * The asset row, written in `tx`, applying the conflict rule against the row as it is now. Every
   * refusal comes before the first write (see `writeSoon`).
   */
  private write(tx: WriteTx, input: CommitInput, key: string): CommitResult {
    const result = this.writeRow(tx, input, key);
    input.inCommit?.(result.asset);
    return result;
  }

  private writeRow(tx: WriteTx, input: CommitInput, key: string): CommitResult {
    const { repo, path, file } = input;
    const now = new Date();
    // The prepared statements run on the one connection, so inside this transaction.
    const lockedBy = input.importing ? '' : (this.lockOf.get({ repoId: repo.id })?.lockedBy ?? '');
    if (lockedBy) throw conflict(`repository ${repo.name} mirrors ${lockedBy}; writes are refused until cut-over`, 'repo_mirrored');
    const existing = this.byPath.get({ repoId: repo.id, path });
    const values = {
      blobKey: key,
      size: file.size,
      sha256: file.hashes.sha256,
      sha1: file.hashes.sha1 ?? null,
      md5: file.hashes.md5 ?? null,
      contentType: input.contentType,
      uploader: input.uploader,
      updatedAt: now,
    };
    if (!existing) {
      this.generations.bump('assets', tx);
      const asset = this.insertRow.get({ repoId: repo.id, path, createdAt: now, ...values })!;
      return { status: 'created' as const, asset };
    }
    if (existing.sha256 === file.hashes.sha256) return { status: 'identical' as const, asset: existing };
    if (this.decide(existing, input) === 'conflict') throw conflict(input.conflictMessage ?? `${path} already exists with different content`, input.conflictCode ?? 'asset_exists');
    this.generations.bump('assets', tx);
    // Replaced within the second it was written: its Last-Modified must still move (`nextModified`).
    const replaced = { ...values, updatedAt: nextModified(existing.updatedAt, now.getTime()) };
    const asset = tx.update(assets).set(replaced).where(eq(assets.id, existing.id)).returning().get()!;
    return { status: 'replaced' as const, asset };
  }

  /** For small files the server writes itself (metadata, indexes): same path as an upload. */
  async commitBytes(input: Omit<CommitInput, 'file'> & { bytes: Buffer | string; algorithms?: ('sha1' | 'md5' | 'sha512')[] }) {
    const buf = typeof input.bytes === 'string' ? Buffer.from(input.bytes) : input.bytes;
    const file = await this.spool.receiveBytes([buf], { maxBytes: buf.length, algorithms: input.algorithms ?? ['sha1', 'md5'] });
    return this.commit({ ...input, file });
  }

  delete(repo: RepoRow, path: string): boolean {
    return this.db.transaction((tx) => {
      const removed = tx.delete(assets).where(and(eq(assets.repoId, repo.id), eq(assets.path, path))).run().changes > 0;
      if (removed) this.generations.bump('assets', tx);
      return removed;
    });
  }

  /** Paths in order after `after`, restricted to `prefix`: one range scan on (repo_id, path). */
  list(repo: RepoRow, opts: { prefix?: string; after?: string; limit: number }): AssetPage {
    const prefix = opts.prefix ?? '';
    const conds = [eq(assets.repoId, repo.id)];
    if (prefix) {
      conds.push(sql`${assets.path} >= ${prefix}`);
      conds.push(lt(assets.path, prefix + '\u{10FFFF}'));
    }
    if (opts.after !== undefined) conds.push(gt(assets.path, opts.after));
    const rows = this.db
      .select()
      .from(assets)
      .where(and(...conds))
      .orderBy(asc(assets.path))
      .limit(opts.limit + 1)
      .all();
    const more = rows.length > opts.limit;
    const items = more ? rows.slice(0, opts.limit) : rows;
    return { items, last: more ? items[items.length - 1]!.path : null };
  }

  /** Substring search on paths in the given repositories, ordered by (repo name, path). */
  search(repoIds: number[], q: string, opts: { after?: { repoId: number; path: string }; limit: number }) {
    if (!repoIds.length) return { items: [] as (AssetRow & { repoName: string })[], last: null };
    const pattern = '%' + q.replace(/[\\%_]/g, (m) => '\\' + m) + '%';
    const conds = [inArray(assets.repoId, repoIds), sql`${assets.path} LIKE ${pattern} ESCAPE '\\'`];
    if (opts.after) {
      conds.push(sql`(${assets.repoId}, ${assets.path}) > (${opts.after.repoId}, ${opts.after.path})`);
    }
    const rows = this.db
      .select({ asset: assets, repoName: repos.name })
      .from(assets)
      .innerJoin(repos, eq(repos.id, assets.repoId))
      .where(and(...conds))
      .orderBy(asc(assets.repoId), asc(assets.path))
      .limit(opts.limit + 1)
      .all();
    const more = rows.length > opts.limit;
    const items = (more ? rows.slice(0, opts.limit) : rows).map((r) => ({ ...r.asset, repoName: r.repoName }));
    const lastItem = items[items.length - 1];
    return { items, last: more && lastItem ? { repoId: lastItem.repoId, path: lastItem.path } : null };
  }
}

export function assetJson(a: AssetRow) {
  return {
    path: a.path,
    size: a.size,
    sha256: a.sha256,
    sha1: a.sha1,
    md5: a.md5,
    content_type: a.contentType,
    uploader: a.uploader,
    created_at: a.createdAt.toISOString(),
    updated_at: a.updatedAt.toISOString(),
  };
}
