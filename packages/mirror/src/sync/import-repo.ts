import { and, eq, ne, sql } from 'drizzle-orm';
import { readFile } from 'node:fs/promises';
import { importAsset, isTroveError, isUnsafeSegment, removeImported, type CoreContext, type RepoRow } from '@trove/core';
import type { SpooledFile } from '@trove/blobstore';
import { NexusError, type NexusAsset, type NexusChecksums, type NexusClient } from '../nexus/client.js';
import { mirrorFailures, mirrorItems, mirrorSyncRepos } from '../schema.js';
import { metadataHold } from './held-back.js';
import { repoListing, type ImportedItem, type RepoListing } from './listing.js';

export interface RepoCounters {
  listed: number;
  fetched: number;
  skipped: number;
  deleted: number;
  failed: number;
  bytes: number;
}

export interface ImportRepoInput {
  ctx: CoreContext;
  client: NexusClient;
  syncId: number;
  sourceId: string;
  sourceRepo: string;
  target: RepoRow;
  concurrency: number;
  signal: AbortSignal;
  /** Counters already recorded by an earlier run of this sync (a resume keeps fetched, bytes). */
  counters: RepoCounters;
  /** Called with the counters each time they are written to the sync's row (the job's checkpoint). */
  progress?: (counters: RepoCounters) => void;
}

const SIDE_FILE = /\.(sha1|sha256|sha512|md5)$/;
/** Maven metadata names versions and snapshot builds: it may only appear once what it names is there. */
const MAVEN_METADATA = /(^|\/)maven-metadata\.xml$/;

/** The rules format routes apply to request paths (core's parseRepoPath), for paths a source hands us. */
function unsafePath(path: string): boolean {
  return path.length > 1024 || path.split('/').some((segment) => isUnsafeSegment(segment));
}
/**
 * Commits waiting at once, at least. The fs blob store makes small imported files durable many at a
 * time (two filesystem flushes 20 ms apart, see blobstore's filesystemFlush), so about 60 ms of
 * arrivals must be able to wait together: 64 commits ran at 800 files/s, 256 at 1,900
 * (bench/mirror-import.mjs, 10,000 files). A commit holds a closed spool file and a few objects.
 */
const COMMITS_IN_FLIGHT = 256;
/**
 * Large files (fsynced in their own download slot) gain nothing by waiting together: at most this
 * many per download slot wait for their commit, so a store slower than the source (S3) never piles
 * their spool files up on the local disk.
 */
const LARGE_COMMITS_PER_SLOT = 4;
/**
 * Pages in a row that name no path this run has not listed yet, before the listing is taken for one
 * that never ends (a source that repeats entries under fresh continuation tokens). Nexus never
 * repeats a page; entries added during the enumeration are new paths.
 */
const MAX_STALE_PAGES = 100;
/** A content type the source declares, kept only when it is one (parameters in printable ASCII: it becomes a response header). */
const MIME = /^[\w.+-]+\/[\w.+-]+(;[\t\x20-\x7e]{0,100})?$/;

/**
 * Imports one source repository into its target, incrementally:
 *  1. enumerate every page (a page that fails after its retries ends the run as failed, and
 *     then nothing is deleted: a broken listing is never an empty repository);
 *  2. a file whose source sha1 matches what was imported before is skipped; others are
 *     downloaded (bounded concurrency), every declared checksum verified, then imported through
 *     the format's hook; each import is recorded at once, so a restart skips it;
 *  3. checksum side files are checked against the file they describe once everything is listed;
 *  4. only after a complete listing, files gone from the source are removed from the target.
 * The listing and the earlier imports are read through the database (`repoListing`), a page or a
 * batch at a time, so the memory a sync holds does not grow with the repository's size.
 * Counters are written to the sync's row every half second and at the end.
 */
export async function importRepo(input: ImportRepoInput): Promise<void> {
  const { ctx, client, syncId, sourceId, sourceRepo, target, signal, counters } = input;
  const db = ctx.db;
  // Checksum side files and metadata have Maven's meaning only in a Maven repository; raw files land as they are.
  const maven = target.format === 'maven';
  const isSideFile = (path: string) => maven && SIDE_FILE.test(path);
  const listing = repoListing(db, { sourceId, sourceRepo, syncId, isSideFile, isDeferred: (path) => maven && MAVEN_METADATA.test(path) });
  listing.clear(); // a resumed run lists again from the start
  const inflight = new Set<Promise<void>>();
  const commits = new Set<Promise<void>>();
  const maxBytes = ctx.settings.int('max_upload_bytes');
  const commitLimit = Math.max(COMMITS_IN_FLIGHT, input.concurrency * LARGE_COMMITS_PER_SLOT);
  const largeCommitLimit = input.concurrency * LARGE_COMMITS_PER_SLOT;
  let largeCommits = 0;
  // Prepared once per run: this upsert follows every imported file.
  const recordItem = db
    .insert(mirrorItems)
    .values({ sourceId, sourceRepo, path: sql.placeholder('path'), sha1: sql.placeholder('sha1'), targetPath: sql.placeholder('targetPath'), syncId })
    .onConflictDoUpdate({
      target: [mirrorItems.sourceId, mirrorItems.sourceRepo, mirrorItems.path],
      set: { sha1: sql.raw(`excluded.${mirrorItems.sha1.name}`), targetPath: sql.raw(`excluded.${mirrorItems.targetPath.name}`), syncId: sql.raw(`excluded.${mirrorItems.syncId.name}`) },
    })
    .prepare();

  // Prepared once too: it runs with every batch of records. Built per call, drizzle's query building and
  // SQLite's prepare cost a sixth of a small file's import CPU (bench/mirror-import.mjs, a --cpu-prof of a sync).
  const counterNames = ['listed', 'fetched', 'skipped', 'deleted', 'failed', 'bytes'] as const satisfies readonly (keyof RepoCounters)[];
  const updateCounters = db
    .update(mirrorSyncRepos)
    .set(Object.fromEntries(counterNames.map((k) => [k, sql.placeholder(k)])))
    .where(and(eq(mirrorSyncRepos.syncId, syncId), eq(mirrorSyncRepos.sourceRepo, sourceRepo)))
    .prepare();
  const writeCounters = () => updateCounters.run({ ...counters });
  const flush = () => {
    writeCounters();
    input.progress?.(counters);
  };
  const timer = setInterval(flush, 500);
  timer.unref();

  /**
   * Removes a file from the target unless another source path still lands there: Debian files every
   * copy of a package under one pool path, so a package renamed or duplicated at the source must
   * stay while any of its source paths does.
   */
  const sharedWith = db
    .select({ path: mirrorItems.path })
    .from(mirrorItems)
    .where(and(eq(mirrorItems.sourceId, sourceId), eq(mirrorItems.sourceRepo, sourceRepo), eq(mirrorItems.targetPath, sql.placeholder('targetPath')), ne(mirrorItems.path, sql.placeholder('path'))))
    .limit(1)
    .prepare();
  const removeUnlessShared = async (targetPath: string, path: string) => {
    if (!sharedWith.get({ targetPath, path })) await removeImported(ctx, { repo: target, path: targetPath });
  };

  const fail = (path: string, reason: string) => {
    counters.failed++;
    db.insert(mirrorFailures).values({ syncId, sourceRepo, path, reason: reason.slice(0, 1000) }).run();
  };

  /**
   * Paths this run listed unreadably, and so recorded as failures. A listing can also name the same
   * path readably (it repeats an entry, one copy spoiled): that entry then decides, imported, skipped
   * as unchanged or failed on its own, and the unreadable one is no failure. Left in place, it would
   * hold back the metadata above the file and refuse the cut-over.
   */
  const listedUnreadably = new Set<string>();
  const listedReadably = (path: string) => {
    if (!listedUnreadably.delete(path)) return;
    const thisFailure = and(eq(mirrorFailures.syncId, syncId), eq(mirrorFailures.sourceRepo, sourceRepo), eq(mirrorFailures.path, path));
    counters.failed -= db.delete(mirrorFailures).where(thisFailure).run().changes;
  };

  /**
   * An import's record in `mirror_items`, with the counters: a resumed run then skips it and finds it
   * counted as fetched. Written inside the transaction that makes the file visible (`onImported`), so
   * a kill at any moment leaves no file in the target this table does not name, which a deletion at
   * the source would then never remove. A prepared upsert and update ride along in the asset writes'
   * shared transaction: recording in a transaction of its own was a tenth of a small file's import.
   * Returns a function that takes the counts back, for a transaction that rolled back after it ran.
   */
  const record = (item: { path: string; sha1: string; targetPath: string }, size: number) => {
    recordItem.run(item);
    counters.fetched++;
    counters.bytes += size;
    const undo = () => {
      counters.fetched--;
      counters.bytes -= size;
    };
    try {
      writeCounters();
    } catch (err) {
      undo();
      throw err;
    }
    return undo;
  };
  /**
   * Committing (the blob store's flushes and rename, then the database) runs after the download
   * slot is released, up to `commitLimit` at a time (`largeCommitLimit` of them large): the source sees `concurrency` requests, and
   * a small file's wait for its flushes never idles a download slot. What waits here is a spool
   * file on disk, not memory.
   */
  const commit = async (asset: NexusAsset, before: ImportedItem | undefined, file: SpooledFile) => {
    const { path } = asset;
    try {
      const contentType = asset.contentType && MIME.test(asset.contentType) ? asset.contentType : 'application/octet-stream';
      const size = file.size;
      const sha1 = asset.checksum.sha1!;
      let rollback: (() => void) | undefined;
      const onImported = (targetPath: string) => {
        rollback = record({ path, sha1, targetPath }, size);
      };
      let targetPath: string;
      try {
        const result = await importAsset(ctx, { repo: target, path, file, contentType, uploader: asset.uploader ?? '', onImported });
        targetPath = result.status === 'skipped' ? '' : result.path;
        // Skipped (nothing became visible), or a format whose import does not record in its commit.
        if (!rollback) db.transaction(() => onImported(targetPath));
      } catch (err) {
        rollback?.(); // recorded in a transaction that then rolled back: neither the file nor its record is there
        throw err;
      }
      if (before?.targetPath && before.targetPath !== targetPath) await removeUnlessShared(before.targetPath, path);
    } catch (err) {
      if (err instanceof NexusError || isTroveError(err)) return fail(path, err.message);
      ctx.log.warn({ err, repo: sourceRepo, path }, 'mirror: import failed');
      fail(path, `import failed: ${(err as Error).message}`);
    }
  };

  const fetchOne = async (asset: NexusAsset, before: ImportedItem | undefined, check?: (file: SpooledFile) => Promise<string | null>) => {
    const { path } = asset;
    let file: SpooledFile | undefined;
    try {
      if (unsafePath(path)) return fail(path.slice(0, 200), 'unsafe path (empty, "." or ".." segments, backslashes, control or invisible formatting characters); not imported');
      if (!asset.checksum.sha1) return fail(path, 'the source declares no sha1 for this file; it cannot be verified');
      file = await client.download(sourceRepo, asset, ctx.spool, { maxBytes, signal });
      const wrong = mismatch(asset.checksum, file) ?? (check ? await check(file) : null);
      if (wrong) return fail(path, wrong);
      const large = file.durable;
      while (commits.size >= commitLimit || (large && largeCommits >= largeCommitLimit)) await Promise.race(commits);
      const owned = file;
      file = undefined; // importAsset disposes it from here on
      if (large) largeCommits++;
      const p: Promise<void> = commit(asset, before, owned).finally(() => {
        commits.delete(p);
        if (large) largeCommits--;
      });
      commits.add(p);
    } catch (err) {
      if (signal.aborted) throw err;
      if (err instanceof NexusError || isTroveError(err)) return fail(path, err.message);
      ctx.log.warn({ err, repo: sourceRepo, path }, 'mirror: download failed');
      fail(path, `download failed: ${(err as Error).message}`);
    } finally {
      await file?.dispose();
    }
  };

  const schedule = async (job: () => Promise<void>) => {
    while (inflight.size >= input.concurrency) await Promise.race(inflight);
    const p: Promise<void> = job()
      .catch(() => {}) // only an abort escapes fetchOne; the loop below notices the signal
      .finally(() => inflight.delete(p));
    inflight.add(p);
  };

  // The next page is fetched while this one's files download, so a page boundary never idles the slots.
  const pages = client.assets(sourceRepo, signal)[Symbol.asyncIterator]();
  let pathless = 0;
  let stalePages = 0;
  try {
    let ahead = pages.next();
    for (;;) {
      const step = await ahead;
      if (step.done) break;
      const page = step.value;
      ahead = pages.next();
      ahead.catch(() => {}); // awaited (and thrown) at the top of the next round
      counters.listed += page.items.length + page.unreadable.length;
      const kept: string[] = [];
      // One transaction for a page's failures: a page of 10,000 broken entries written one by one held the event loop for seconds.
      db.transaction(() => {
        for (const { path, reason } of page.unreadable) {
          if (path === null) {
            pathless++;
            fail('(unreadable listing entry)', `the source listed an entry without a usable path (${reason})`);
          } else {
            kept.push(path);
            if (listing.listedReadably(path)) continue; // listed readably before: that entry decides
            listedUnreadably.add(path);
            fail(path.slice(0, 1024), `the source lists this file with an ${reason}; not imported (a copy imported earlier stays)`);
          }
        }
      });
      let fresh = listing.keep(kept);
      const entries = listing.add(page.items);
      fresh += entries.length;
      stalePages = fresh ? 0 : stalePages + 1;
      if (stalePages >= MAX_STALE_PAGES) throw new NexusError('invalid', `the asset listing gave ${MAX_STALE_PAGES} pages in a row without a file not listed before, each promising more; it was taken for endless`);
      // A path listed twice (added during the enumeration, or through a group) is acted on once.
      for (const { asset, before, action } of entries) {
        if (signal.aborted) break;
        listedReadably(asset.path);
        // What this sync fetched before a restart is already counted as fetched, not as unchanged.
        if (action === 'skip' && before?.syncId !== syncId) counters.skipped++;
        else if (action === 'fetch') await schedule(() => fetchOne(asset, before));
      }
      signal.throwIfAborted();
    }
    // Metadata and side files go in only once every file they could name has committed: a reader
    // resolving a snapshot or a version through the metadata never meets a file that is not there yet.
    await Promise.all(inflight);
    await Promise.all(commits);
    const heldBy = metadataHold(db, syncId, sourceRepo);
    for await (const { asset, before } of listing.deferred()) {
      signal.throwIfAborted();
      const failed = maven && MAVEN_METADATA.test(asset.path) ? heldBy(asset.path) : undefined;
      if (failed) {
        fail(asset.path, `held back: ${failed} was not imported, and this metadata may name it; it is imported by the sync that imports that file`);
        continue;
      }
      await schedule(() => fetchOne(asset, before, isSideFile(asset.path) ? (file) => checkSideFile(asset.path, file, listing) : undefined));
    }
    await Promise.all(inflight);
    await Promise.all(commits);
    signal.throwIfAborted();
    if (pathless > 0) {
      // Any of those entries could be a file imported earlier: none can be taken for deleted at the source.
      fail('(deletions)', `not done: ${pathless} listing entries had no usable path, so a file missing from the listing may still be at the source`);
      return;
    }
    let removed = 0;
    for await (const { path, targetPath } of listing.gone()) {
      signal.throwIfAborted();
      // A source that deleted much would otherwise hold the event loop (and every other request) for the whole phase.
      if (++removed % 100 === 0) await new Promise((r) => setImmediate(r));
      if (targetPath) await removeUnlessShared(targetPath, path);
      db.delete(mirrorItems).where(and(eq(mirrorItems.sourceId, sourceId), eq(mirrorItems.sourceRepo, sourceRepo), eq(mirrorItems.path, path))).run();
      counters.deleted++;
    }
  } finally {
    void pages.return(undefined).catch(() => {});
    await Promise.allSettled(inflight);
    await Promise.allSettled(commits);
    clearInterval(timer);
    flush();
    listing.clear();
  }
}

/** The first declared checksum the bytes do not match, as a failure reason; null when all match. */
function mismatch(declared: NexusChecksums, file: SpooledFile): string | null {
  for (const alg of ['sha1', 'sha256', 'md5', 'sha512'] as const) {
    const want = declared[alg];
    if (want && file.hashes[alg] !== undefined && file.hashes[alg] !== want) return `checksum mismatch: the source declares ${alg} ${want}, the downloaded bytes have ${file.hashes[alg]}`;
    if (want && alg === 'sha256' && file.hashes.sha256 !== want) return `checksum mismatch: the source declares sha256 ${want}, the downloaded bytes have ${file.hashes.sha256}`;
  }
  return null;
}

/** A `.sha1`/`.md5`/... side file must name the digest the source declared for the file it describes. */
async function checkSideFile(path: string, file: SpooledFile, listing: RepoListing): Promise<string | null> {
  const alg = SIDE_FILE.exec(path)![1] as keyof NexusChecksums;
  const base = listing.declared(path.slice(0, -(alg.length + 1)));
  const want = base?.[alg];
  if (!want || file.size > 1024) return null; // describes nothing listed, or is not a bare digest: a plain file
  const text = (await readFile(file.path, 'utf8')).trim().split(/\s+/)[0]!.toLowerCase();
  return text === want ? null : `checksum side file disagrees with ${path.slice(0, -(alg.length + 1))}: it says ${text.slice(0, 128)}, the source declares ${want}`;
}
