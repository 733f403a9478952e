import { and, asc, eq, gt, inArray, isNotNull, notExists, sql } from 'drizzle-orm';
import type { CoreContext } from '@trove/core';
import type { NexusAsset, NexusChecksums } from '../nexus/client.js';
import { mirrorItems, mirrorListing, mirrorSyncs } from '../schema.js';

type Db = CoreContext['db'];

/** What an earlier sync imported for a path: the source's sha1 then, and where the file landed. */
export interface ImportedItem {
  sha1: string;
  targetPath: string;
  /** The sync that imported it (null for imports recorded before this was kept). */
  syncId: number | null;
}

/** One listed file, and what to do with it; `before` is what an earlier sync imported there. */
export type ListedEntry = { asset: NexusAsset; before: ImportedItem | undefined; action: 'skip' | 'defer' | 'fetch' };

const BATCH = 500;

/** The sha1 of a path recorded by `keep` (listed, but too broken to import): never a digest. */
const KEPT = '';

/**
 * One run's listing of one source repository, kept in `mirror_listing` (see there why on disk), and
 * the earlier imports in `mirror_items`, read a path at a time: what a sync holds in memory stays the
 * same whatever the repository's size.
 */
export function repoListing(db: Db, opts: { sourceId: string; sourceRepo: string; syncId: number; isSideFile: (path: string) => boolean; isDeferred: (path: string) => boolean }) {
  const { sourceId, sourceRepo, syncId } = opts;
  const p = (name: string) => sql.placeholder(name);
  const importedAt = db
    .select({ sha1: mirrorItems.sha1, targetPath: mirrorItems.targetPath, syncId: mirrorItems.syncId })
    .from(mirrorItems)
    .where(and(eq(mirrorItems.sourceId, sourceId), eq(mirrorItems.sourceRepo, sourceRepo), eq(mirrorItems.path, p('path'))))
    .prepare();
  const values = { syncId, sourceRepo, path: p('path'), sha1: p('sha1'), md5: p('md5'), sha256: p('sha256'), sha512: p('sha512'), deferred: p('deferred') };
  /** A path listed as it is: new, or in place of an entry `keep` recorded for it (its sha1 is `KEPT`). */
  const insert = db
    .insert(mirrorListing)
    .values(values)
    .onConflictDoUpdate({
      target: [mirrorListing.syncId, mirrorListing.sourceRepo, mirrorListing.path],
      set: Object.fromEntries((['sha1', 'md5', 'sha256', 'sha512', 'deferred'] as const).map((k) => [k, sql.raw(`excluded.${mirrorListing[k].name}`)])),
      setWhere: eq(mirrorListing.sha1, KEPT),
    })
    .prepare();
  const insertKept = db.insert(mirrorListing).values(values).onConflictDoNothing().prepare();
  const declaredAt = db
    .select({ sha1: mirrorListing.sha1, md5: mirrorListing.md5, sha256: mirrorListing.sha256, sha512: mirrorListing.sha512 })
    .from(mirrorListing)
    .where(and(eq(mirrorListing.syncId, syncId), eq(mirrorListing.sourceRepo, sourceRepo), eq(mirrorListing.path, p('path'))))
    .prepare();
  const thisRun = and(eq(mirrorListing.syncId, syncId), eq(mirrorListing.sourceRepo, sourceRepo));

  return {
    /** Forgets what any run of this source's syncs listed here before (a resumed run lists again from the start). */
    clear(): void {
      const syncsOfSource = db.select({ id: mirrorSyncs.id }).from(mirrorSyncs).where(eq(mirrorSyncs.sourceId, sourceId));
      db.delete(mirrorListing).where(and(eq(mirrorListing.sourceRepo, sourceRepo), inArray(mirrorListing.syncId, syncsOfSource))).run();
    },

    /**
     * Records a page in one transaction and says what to do with each file listed for the first time
     * in this run (a path listed again is left out, unless only `keep` had it): skip it when its sha1 is what an earlier sync
     * imported, defer it when it is a side file or `isDeferred` says so (fetched by `deferred()` once the listing is complete),
     * fetch it otherwise.
     */
    add(items: readonly NexusAsset[]): ListedEntry[] {
      return db.transaction(() => {
        const out: ListedEntry[] = [];
        for (const asset of items) {
          const before = importedAt.get({ path: asset.path });
          const unchanged = !!asset.checksum.sha1 && before?.sha1 === asset.checksum.sha1;
          const side = opts.isSideFile(asset.path);
          const action = unchanged ? 'skip' : side || opts.isDeferred(asset.path) ? 'defer' : 'fetch';
          const c = side ? {} : asset.checksum;
          const fresh = insert.run({ path: asset.path, sha1: c.sha1 ?? null, md5: c.md5 ?? null, sha256: c.sha256 ?? null, sha512: c.sha512 ?? null, deferred: action === 'defer' ? JSON.stringify(asset) : null });
          if (fresh.changes === 1) out.push({ asset, before, action });
        }
        return out;
      });
    },

    /**
     * Records paths the source listed with entries too broken to import: listed all the same, so a
     * copy imported earlier is not taken for deleted at the source. A readable entry for the same
     * path, listed later, still gets imported (`add`). Answers how many paths were new to this run.
     */
    keep(paths: readonly string[]): number {
      if (!paths.length) return 0;
      return db.transaction(() => {
        let fresh = 0;
        for (const path of paths) fresh += insertKept.run({ path, sha1: KEPT, md5: null, sha256: null, sha512: null, deferred: null }).changes;
        return fresh;
      });
    },

    /** Whether this run listed `path` readably (a side file too), not only as a broken entry `keep` recorded. */
    listedReadably(path: string): boolean {
      const row = declaredAt.get({ path });
      return !!row && row.sha1 !== KEPT;
    },

    /** The checksums the source declared in this run for `path` (not a side file); undefined when it was not listed. */
    declared(path: string): NexusChecksums | undefined {
      const row = declaredAt.get({ path });
      if (!row) return undefined;
      const out: NexusChecksums = {};
      for (const alg of ['sha1', 'md5', 'sha256', 'sha512'] as const) if (row[alg]) out[alg] = row[alg];
      return out;
    },

    /** The deferred side files, in path order, a batch at a time. */
    async *deferred(): AsyncGenerator<{ asset: NexusAsset; before: ImportedItem | undefined }> {
      let after = '';
      for (;;) {
        const rows = db
          .select({ path: mirrorListing.path, deferred: mirrorListing.deferred })
          .from(mirrorListing)
          .where(and(thisRun, isNotNull(mirrorListing.deferred), gt(mirrorListing.path, after)))
          .orderBy(asc(mirrorListing.path))
          .limit(BATCH)
          .all();
        for (const r of rows) yield { asset: JSON.parse(r.deferred!) as NexusAsset, before: importedAt.get({ path: r.path }) };
        if (rows.length < BATCH) return;
        after = rows[rows.length - 1]!.path;
      }
    },

    /** Files an earlier sync imported that this run's (complete) listing did not name, a batch at a time. */
    async *gone(): AsyncGenerator<{ path: string; targetPath: string }> {
      let after = '';
      for (;;) {
        const listed = db
          .select({ one: sql`1` })
          .from(mirrorListing)
          .where(and(thisRun, eq(mirrorListing.path, mirrorItems.path)));
        const rows = db
          .select({ path: mirrorItems.path, targetPath: mirrorItems.targetPath })
          .from(mirrorItems)
          .where(and(eq(mirrorItems.sourceId, sourceId), eq(mirrorItems.sourceRepo, sourceRepo), gt(mirrorItems.path, after), notExists(listed)))
          .orderBy(asc(mirrorItems.path))
          .limit(BATCH)
          .all();
        yield* rows;
        if (rows.length < BATCH) return;
        after = rows[rows.length - 1]!.path;
      }
    },
  };
}

export type RepoListing = ReturnType<typeof repoListing>;
