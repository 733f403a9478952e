import { eq, inArray } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import { nextModified, type TroveDb } from '@trove/core';
import { debDists, debEntries, debSegments } from './schema.js';
import { chunks, manifestIds, PAGE, prepareStatements } from './store-statements.js';
import { FIRST_KEY, type IndexRow, type Segment, type SegmentKey } from './segments.js';
import { xzStream, type XzBlocks } from './xz-stream.js';

/** A stored package: the facts its Packages paragraph is made of, and its row id. */
export interface PackageRow extends IndexRow {
  id: number;
}

export interface IndexFile {
  path: string;
  size: number;
  md5: string;
  sha256: string;
  sha512: string;
  /** JSON array of the deb_segments ids the file is joined from; null or absent: a deb_blobs row. */
  segments?: string | null;
}

/** A file of a new generation: its bytes (stored in deb_blobs) or the segments it is joined from. */
export type NewFile = IndexFile & { data?: Buffer; parts?: Segment[] };

/** What a reader gets: one file of a published generation. */
export interface ReadFile {
  size: number;
  sha256: string;
  builtAt: number;
  /**
   * Its bytes, read (and for a segmented file, joined) only when called, so a 304, a HEAD or a
   * 416 costs one row. Call it in the same tick as read(): the rows it reads are immutable and
   * only a publish (a synchronous transaction on this connection) can drop them.
   */
  body(): Buffer;
}

export interface DirtyUnit {
  dist: string;
  component: string;
  arch: string;
  /** The package that changed the unit; null: rebuild the whole unit. */
  package: string | null;
  version: string | null;
}

/**
 * The Debian tables, through drizzle's query builder, so a PostgreSQL dialect can follow. Index
 * builds read thousands of rows: the hot statements are prepared once (`sql.placeholder`), a
 * unit's rows are read in pages of PAGE along deb_packages_identity (keyset pagination on the
 * row-value key, so memory stays flat and each page is one index range), and a file's segments
 * are fetched by id and put in the file's order here (the `segments` column is a JSON array
 * parsed in TypeScript, not by the database). W5 (docs/performance.md) measures this path.
 */
export class DebianStore {
  private readonly s;

  constructor(private readonly db: TroveDb) {
    this.s = prepareStatements(db);
  }

  packageByIdentity(repoId: number, pkg: string, version: string, arch: string): PackageRow | undefined {
    return this.s.packageByIdentity.get({ repoId, package: pkg, version, architecture: arch });
  }

  /**
   * Records a package (if new) and its membership in (dist, component), and marks the
   * affected index units dirty, in one transaction. Returns the stored row and whether
   * anything changed; a different row under the same identity is the caller's 409.
   */
  addPackage(
    repoId: number,
    dist: string,
    component: string,
    row: IndexRow,
    /** Run inside the transaction once the package is in the distribution, with its pool path (see `ImportInput.onImported`). */
    onAdded?: (filename: string) => void,
  ): { stored: PackageRow; createdPackage: boolean; createdEntry: boolean } {
    return this.db.transaction(
      () => {
        const created = this.s.insertPackage.get({ repoId, ...row, createdAt: new Date() }) !== undefined;
        const stored = this.packageByIdentity(repoId, row.package, row.version, row.architecture)!;
        if (stored.sha256 !== row.sha256) return { stored, createdPackage: false, createdEntry: false };
        const entry = this.s.insertEntry.get({ repoId, dist, component, packageId: stored.id }) !== undefined;
        if (entry) this.markDirty(repoId, dist, component, row.architecture, row);
        onAdded?.(stored.filename);
        return { stored, createdPackage: created, createdEntry: entry };
      },
      { behavior: 'immediate' },
    );
  }

  /** Whether a package of the repository is filed at `filename` (its pool path). */
  hasPackageFile(repoId: number, filename: string): boolean {
    return this.s.packageByFilename.get({ repoId, filename }) !== undefined;
  }

  /**
   * Removes a package (by pool file) from every distribution it is in, in one transaction, and
   * queues the affected segments; entries go with the row (ON DELETE CASCADE). Used when an
   * import source deleted the file. Returns false when no package has that file.
   */
  removePackageFile(repoId: number, filename: string): boolean {
    return this.db.transaction(
      () => {
        const row = this.s.packageByFilename.get({ repoId, filename });
        if (!row) return false;
        const entries = this.s.entriesOf.all({ id: row.id });
        this.s.deletePackage.run({ id: row.id });
        for (const e of entries) this.markDirty(repoId, e.dist, e.component, row.architecture, row);
        return true;
      },
      { behavior: 'immediate' },
    );
  }

  /** Queues a unit's rebuild: the segment of one package, or (without one) the whole unit. */
  markDirty(repoId: number, dist: string, component: string, arch: string, pkg?: { package: string; version: string }): void {
    this.s.markDirty.run({ repoId, dist, component, arch, package: pkg?.package ?? null, version: pkg?.version ?? null });
  }

  /** Every published distribution (one with a current generation). */
  publishedDists(): { repoId: number; dist: string }[] {
    return this.s.publishedDists.all();
  }

  /** Queues a re-sign (Release only) of every distribution, or of one repository's. */
  markResign(repoId?: number): number {
    const rows =
      repoId === undefined
        ? this.db
            .selectDistinct({ repoId: debEntries.repoId, dist: debEntries.dist })
            .from(debEntries)
            .union(this.db.select({ repoId: debDists.repoId, dist: debDists.dist }).from(debDists))
            .all()
        : this.db
            .selectDistinct({ dist: debEntries.dist })
            .from(debEntries)
            .where(eq(debEntries.repoId, repoId))
            .union(this.db.select({ dist: debDists.dist }).from(debDists).where(eq(debDists.repoId, repoId)))
            .all()
            .map((r) => ({ repoId, dist: r.dist }));
    this.db.transaction(() => rows.forEach((r) => this.markDirty(r.repoId, r.dist, '', '')), { behavior: 'immediate' });
    return rows.length;
  }

  dirtyDists(): { repoId: number; dist: string }[] {
    return this.s.dirtyDists.all();
  }

  dirtyUnits(repoId: number, dist: string): { units: DirtyUnit[]; maxSeq: number } {
    const rows = this.s.dirtyOf.all({ repoId, dist });
    return { units: rows, maxSeq: rows.reduce((m, r) => Math.max(m, r.seq), 0) };
  }

  pending(repoId: number): number {
    return this.s.pendingCount.get({ repoId })!.n;
  }

  components(repoId: number, dist: string): string[] {
    return this.s.componentsOf.all({ repoId, dist }).map((r) => r.component);
  }

  arches(repoId: number, dist: string): string[] {
    return this.s.archesOf.all({ repoId, dist }).map((r) => r.arch);
  }

  /** The rows of one index unit in key order, read a page at a time. */
  unitPackages(repoId: number, dist: string, component: string, arch: string): IterableIterator<IndexRow> {
    return this.unitRange(repoId, dist, component, arch, FIRST_KEY, null);
  }

  /**
   * The rows of one unit with lo <= (package, version, architecture) < hi, in key order, read a page
   * at a time (each page starts after the last key of the one before). Consume it in one tick, as
   * the builds do: pages are separate statements, and only the rows of one page are in memory.
   */
  *unitRange(repoId: number, dist: string, component: string, arch: string, lo: SegmentKey, hi: SegmentKey | null): IterableIterator<IndexRow> {
    const bound = hi ? { hp: hi[0], hv: hi[1], ha: hi[2] } : {};
    let from = lo;
    for (let first = true; ; first = false) {
      const stmt = hi ? (first ? this.s.firstRangePage : this.s.nextRangePage) : first ? this.s.firstPage : this.s.nextPage;
      const rows = stmt.all({ repoId, dist, component, arch, lp: from[0], lv: from[1], la: from[2], ...bound });
      yield* rows;
      if (rows.length < PAGE) return;
      const last = rows[rows.length - 1]!;
      from = [last.package, last.version, last.architecture];
    }
  }

  /**
   * Rows of deb_segments by id, `columns` only, in the order of `ids` (a file's segments); ids
   * without a row are left out, as a join would.
   */
  private segmentRows<C extends Record<string, SQLiteColumn>>(ids: number[], columns: C) {
    const found = new Map<number, { id: number } & { [K in keyof C]: C[K]['_']['data'] }>();
    for (const chunk of chunks(ids)) {
      const rows = this.db
        .select({ id: debSegments.id, ...columns })
        .from(debSegments)
        .where(inArray(debSegments.id, chunk))
        .all() as ({ id: number } & { [K in keyof C]: C[K]['_']['data'] })[];
      for (const r of rows) found.set(r.id, r);
    }
    return ids.flatMap((id) => found.get(id) ?? []);
  }

  /** The segments a file (the `segments` of a deb_files row) is joined from, in order. */
  segments(manifest: string): Segment[] {
    const s = debSegments;
    const rows = this.segmentRows(manifestIds(manifest), {
      loPackage: s.loPackage,
      loVersion: s.loVersion,
      loArch: s.loArch,
      count: s.count,
      text: s.text,
      gz: s.gz,
      xz: s.xz,
      xzRecords: s.xzRecords,
      xzBlocks: s.xzBlocks,
    });
    return rows.map((r) => ({
      id: r.id,
      lo: [r.loPackage, r.loVersion, r.loArch] as const,
      count: r.count,
      text: r.text,
      gz: r.gz,
      xz: { blocks: r.xz, records: r.xzRecords, count: r.xzBlocks },
    }));
  }

  current(repoId: number, dist: string): { generation: number; builtAt: number } | undefined {
    const row = this.s.generation.get({ repoId, dist });
    return row && { generation: row.generation, builtAt: row.builtAt.getTime() };
  }

  files(repoId: number, dist: string, generation: number): IndexFile[] {
    return this.s.filesOf.all({ repoId, dist, generation });
  }

  /** One file of the current generation (or, by hash, of the previous one too); its bytes on demand. */
  read(repoId: number, dist: string, path: string): ReadFile | undefined {
    const byHash = /^(.*\/)by-hash\/(MD5Sum|SHA256|SHA512)\/([0-9a-f]{32,128})$/.exec(path);
    const row = byHash
      ? this.s.byHash.all({ repoId, dist, hash: byHash[3] }).find((f) => f.path.startsWith(byHash[1]!))
      : this.s.fileAt.get({ repoId, dist, path });
    if (!row) return undefined;
    const body = () => {
      if (row.segments === null) {
        const data = this.s.blob.get({ sha256: row.sha256 })?.data;
        if (!data) throw new Error(`debian index ${dist}/${row.path}: its blob is missing`);
        return data;
      }
      const data = this.joinFile(row.path, row.segments);
      // Parts missing from a damaged database: a 500, never a shorter index under Release's size.
      if (data.length !== row.size) throw new Error(`debian index ${dist}/${row.path}: its segments give ${data.length} bytes, not ${row.size}`);
      return data;
    };
    return { size: row.size, sha256: row.sha256, builtAt: row.builtAt.getTime(), body };
  }

  /**
   * Packages, Packages.gz or Packages.xz (by the path's ending) joined from the segments a deb_files
   * row names; only the column that file is joined from is read (a Packages.xz read must not load every text).
   */
  private joinFile(path: string, manifest: string): Buffer {
    const ids = manifestIds(manifest);
    const s = debSegments;
    if (path.endsWith('.xz')) {
      return xzStream(this.segmentRows(ids, { blocks: s.xz, records: s.xzRecords, count: s.xzBlocks }) satisfies XzBlocks[]);
    }
    if (path.endsWith('.gz')) return Buffer.concat(this.segmentRows(ids, { part: s.gz }).map((r) => r.part));
    return Buffer.concat(this.segmentRows(ids, { part: s.text }).map((r) => r.part));
  }

  /**
   * Makes a new generation visible in one transaction: its new segments and blobs, its files, the
   * generation pointer, dropping generations older than the previous one (and the segments and
   * blobs only they used), and the dirty rows it consumed.
   */
  publish(repoId: number, dist: string, generation: number, files: NewFile[], consumedSeq: number): void {
    // apt revalidates InRelease with If-Modified-Since alone: each generation needs a later second.
    const builtAt = nextModified(this.current(repoId, dist)?.builtAt);
    this.db.transaction(
      () => {
        for (const f of files) {
          let manifest = f.segments ?? null;
          if (f.parts) {
            for (const g of f.parts) {
              g.id ??= this.s.insertSegment.get({
                repoId,
                dist,
                loPackage: g.lo[0],
                loVersion: g.lo[1],
                loArch: g.lo[2],
                count: g.count,
                text: g.text,
                gz: g.gz,
                xz: g.xz.blocks,
                xzRecords: g.xz.records,
                xzBlocks: g.xz.count,
              })!.id;
            }
            manifest = JSON.stringify(f.parts.map((g) => g.id));
          } else if (f.data) {
            this.s.insertBlob.run({ sha256: f.sha256, data: f.data });
          }
          this.s.insertFile.run({ repoId, dist, generation, path: f.path, size: f.size, md5: f.md5, sha256: f.sha256, sha512: f.sha512, segments: manifest });
        }
        this.s.upsertDist.run({ repoId, dist, generation, builtAt });
        this.s.dropOldFiles.run({ repoId, dist, generation: generation - 1 });
        this.s.clearDirty.run({ repoId, dist, seq: consumedSeq });
        this.s.gcBlobs.run();
        this.gcSegments(repoId, dist);
      },
      { behavior: 'immediate' },
    );
  }

  /** Deletes the distribution's segments no kept generation's file names any more (inside publish's transaction). */
  private gcSegments(repoId: number, dist: string): void {
    const named = new Set<number>();
    for (const { segments } of this.s.manifestsOf.all({ repoId, dist })) for (const id of manifestIds(segments!)) named.add(id);
    const unnamed = this.s.segmentIdsOf
      .all({ repoId, dist })
      .map((r) => r.id)
      .filter((id) => !named.has(id));
    for (const chunk of chunks(unnamed)) this.db.delete(debSegments).where(inArray(debSegments.id, chunk)).run();
  }
}
