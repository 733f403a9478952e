import type Database from 'better-sqlite3';
import { nextModified, type TroveDb } from '@trove/core';
import type { IndexRow, Segment, SegmentKey } from './segments.js';
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
 * The Debian tables, through prepared statements on the raw better-sqlite3 handle:
 * index builds read thousands of rows, and the query builder's per-row mapping is
 * measurable there (see docs/performance.md, W5).
 */
const ROW = 'p.package, p.version, p.architecture, p.filename, p.size, p.md5, p.sha256, p.control';
const RANGE = `SELECT ${ROW} FROM deb_packages p
  JOIN deb_entries e ON e.repo_id = p.repo_id AND e.dist = @dist AND e.component = @component AND e.package_id = p.id
  WHERE p.repo_id = @repoId AND p.architecture IN (@arch, 'all') AND (p.package, p.version, p.architecture) >= (@lp, @lv, @la)`;
const RANGE_ORDER = 'ORDER BY p.package, p.version, p.architecture';

export class DebianStore {
  readonly sql: Database.Database;
  private readonly s;

  constructor(db: TroveDb) {
    this.sql = (db as unknown as { $client: Database.Database }).$client;
    const p = (q: string) => this.sql.prepare(q);
    this.s = {
      packageByIdentity: p('SELECT * FROM deb_packages WHERE repo_id = ? AND package = ? AND version = ? AND architecture = ?'),
      packageByFilename: p('SELECT * FROM deb_packages WHERE repo_id = ? AND filename = ?'),
      entriesOf: p('SELECT dist, component FROM deb_entries WHERE package_id = ?'),
      deletePackage: p('DELETE FROM deb_packages WHERE id = ?'),
      insertPackage: p(
        `INSERT INTO deb_packages (repo_id, package, version, architecture, filename, size, md5, sha256, control, created_at)
         VALUES (@repoId, @package, @version, @architecture, @filename, @size, @md5, @sha256, @control, @createdAt)
         ON CONFLICT (repo_id, package, version, architecture) DO NOTHING`,
      ),
      insertEntry: p('INSERT OR IGNORE INTO deb_entries (repo_id, dist, component, package_id) VALUES (?, ?, ?, ?)'),
      markDirty: p('INSERT INTO deb_dirty (repo_id, dist, component, arch, package, version) VALUES (?, ?, ?, ?, ?, ?)'),
      dirtyRepos: p('SELECT DISTINCT repo_id AS repoId, dist FROM deb_dirty ORDER BY seq'),
      dirtyOf: p('SELECT seq, dist, component, arch, package, version FROM deb_dirty WHERE repo_id = ? AND dist = ?'),
      clearDirty: p('DELETE FROM deb_dirty WHERE repo_id = ? AND dist = ? AND seq <= ?'),
      pendingCount: p(
        `SELECT count(*) AS n FROM (SELECT DISTINCT dist, component, arch FROM deb_dirty WHERE repo_id = ?)`,
      ),
      distsOf: p('SELECT DISTINCT dist FROM deb_entries WHERE repo_id = ? UNION SELECT dist FROM deb_dists WHERE repo_id = ?'),
      allDists: p('SELECT DISTINCT repo_id AS repoId, dist FROM deb_entries UNION SELECT repo_id, dist FROM deb_dists'),
      publishedDists: p('SELECT repo_id AS repoId, dist FROM deb_dists'),
      componentsOf: p('SELECT DISTINCT component FROM deb_entries WHERE repo_id = ? AND dist = ? ORDER BY component'),
      archesOf: p(
        `SELECT DISTINCT p.architecture AS arch FROM deb_entries e JOIN deb_packages p ON p.id = e.package_id
         WHERE e.repo_id = ? AND e.dist = ? AND p.architecture <> 'all'`,
      ),
      unitPackages: p(
        `SELECT ${ROW} FROM deb_entries e JOIN deb_packages p ON p.id = e.package_id
         WHERE e.repo_id = ? AND e.dist = ? AND e.component = ? AND p.architecture IN (?, 'all')
         ORDER BY p.package, p.version, p.architecture`,
      ),
      // One segment's rows: a range scan of deb_packages_identity, each checked against deb_entries' key.
      rangePackages: p(`${RANGE} AND (p.package, p.version, p.architecture) < (@hp, @hv, @ha) ${RANGE_ORDER}`),
      tailPackages: p(`${RANGE} ${RANGE_ORDER}`),
      // A file's segments in the file's order (json_each's key is the array index).
      segmentsOf: p(
        `SELECT s.id, s.lo_package, s.lo_version, s.lo_arch, s.count, s.text, s.gz, s.xz, s.xz_records, s.xz_blocks
         FROM json_each(?) j JOIN deb_segments s ON s.id = j.value ORDER BY j.key`,
      ),
      // Only the column a reader's file is joined from (a Packages.xz read must not load every text).
      textParts: p('SELECT s.text FROM json_each(?) j JOIN deb_segments s ON s.id = j.value ORDER BY j.key').pluck(),
      gzParts: p('SELECT s.gz FROM json_each(?) j JOIN deb_segments s ON s.id = j.value ORDER BY j.key').pluck(),
      xzParts: p('SELECT s.xz AS blocks, s.xz_records AS records, s.xz_blocks AS count FROM json_each(?) j JOIN deb_segments s ON s.id = j.value ORDER BY j.key'),
      insertSegment: p(
        `INSERT INTO deb_segments (repo_id, dist, lo_package, lo_version, lo_arch, count, text, gz, xz, xz_records, xz_blocks)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      // Segments no kept generation's file names any more.
      gcSegments: p(
        `DELETE FROM deb_segments WHERE repo_id = @repoId AND dist = @dist AND id NOT IN (
           SELECT j.value FROM deb_files f, json_each(f.segments) j WHERE f.repo_id = @repoId AND f.dist = @dist AND f.segments IS NOT NULL)`,
      ),
      generation: p('SELECT generation, built_at AS builtAt FROM deb_dists WHERE repo_id = ? AND dist = ?'),
      filesOf: p('SELECT path, size, md5, sha256, sha512, segments FROM deb_files WHERE repo_id = ? AND dist = ? AND generation = ?'),
      // Joined with the generation pointer, so the file and the generation come from one snapshot.
      fileAt: p(
        `SELECT f.path, f.size, f.sha256, f.segments, d.built_at AS builtAt FROM deb_dists d
         JOIN deb_files f ON f.repo_id = d.repo_id AND f.dist = d.dist AND f.generation = d.generation
         WHERE d.repo_id = ? AND d.dist = ? AND f.path = ?`,
      ),
      byHash: p(
        `SELECT f.path, f.size, f.sha256, f.segments, d.built_at AS builtAt FROM deb_dists d
         JOIN deb_files f ON f.repo_id = d.repo_id AND f.dist = d.dist AND f.generation >= d.generation - 1
         WHERE d.repo_id = @repoId AND d.dist = @dist AND f.path LIKE @dir ESCAPE '\\'
           AND (f.md5 = @hash OR f.sha256 = @hash OR f.sha512 = @hash) LIMIT 1`,
      ),
      blob: p('SELECT data FROM deb_blobs WHERE sha256 = ?').pluck(),
      insertBlob: p('INSERT OR IGNORE INTO deb_blobs (sha256, data) VALUES (?, ?)'),
      insertFile: p('INSERT INTO deb_files (repo_id, dist, generation, path, size, md5, sha256, sha512, segments) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)'),
      upsertDist: p(
        `INSERT INTO deb_dists (repo_id, dist, generation, built_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (repo_id, dist) DO UPDATE SET generation = excluded.generation, built_at = excluded.built_at`,
      ),
      dropOldFiles: p('DELETE FROM deb_files WHERE repo_id = ? AND dist = ? AND generation < ?'),
      gcBlobs: p('DELETE FROM deb_blobs WHERE NOT EXISTS (SELECT 1 FROM deb_files f WHERE f.sha256 = deb_blobs.sha256)'),
    };
  }

  packageByIdentity(repoId: number, pkg: string, version: string, arch: string): PackageRow | undefined {
    return this.s.packageByIdentity.get(repoId, pkg, version, arch) as PackageRow | undefined;
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
    return this.sql.transaction(() => {
      const created = this.s.insertPackage.run({ repoId, ...row, createdAt: Date.now() }).changes > 0;
      const stored = this.packageByIdentity(repoId, row.package, row.version, row.architecture)!;
      if (stored.sha256 !== row.sha256) return { stored, createdPackage: false, createdEntry: false };
      const entry = this.s.insertEntry.run(repoId, dist, component, stored.id).changes > 0;
      if (entry) this.s.markDirty.run(repoId, dist, component, row.architecture, row.package, row.version);
      onAdded?.(stored.filename);
      return { stored, createdPackage: created, createdEntry: entry };
    }).immediate();
  }

  /**
   * Removes a package (by pool file) from every distribution it is in, in one transaction, and
   * queues the affected segments; entries go with the row (ON DELETE CASCADE). Used when an
   * import source deleted the file. Returns false when no package has that file.
   */
  /** Whether a package of the repository is filed at `filename` (its pool path). */
  hasPackageFile(repoId: number, filename: string): boolean {
    return this.s.packageByFilename.get(repoId, filename) !== undefined;
  }

  removePackageFile(repoId: number, filename: string): boolean {
    return this.sql.transaction(() => {
      const row = this.s.packageByFilename.get(repoId, filename) as PackageRow | undefined;
      if (!row) return false;
      const entries = this.s.entriesOf.all(row.id) as { dist: string; component: string }[];
      this.s.deletePackage.run(row.id);
      for (const e of entries) this.s.markDirty.run(repoId, e.dist, e.component, row.architecture, row.package, row.version);
      return true;
    }).immediate();
  }

  /** Queues a unit's rebuild: the segment of one package, or (without one) the whole unit. */
  markDirty(repoId: number, dist: string, component: string, arch: string, pkg?: { package: string; version: string }): void {
    this.s.markDirty.run(repoId, dist, component, arch, pkg?.package ?? null, pkg?.version ?? null);
  }

  /** Every published distribution (one with a current generation). */
  publishedDists(): { repoId: number; dist: string }[] {
    return this.s.publishedDists.all() as { repoId: number; dist: string }[];
  }

  /** Queues a re-sign (Release only) of every distribution, or of one repository's. */
  markResign(repoId?: number): number {
    const rows = (repoId === undefined ? this.s.allDists.all() : this.s.distsOf.all(repoId, repoId).map((r: any) => ({ repoId, dist: r.dist }))) as {
      repoId: number;
      dist: string;
    }[];
    this.sql.transaction(() => rows.forEach((r) => this.s.markDirty.run(r.repoId, r.dist, '', '', null, null))).immediate();
    return rows.length;
  }

  dirtyDists(): { repoId: number; dist: string }[] {
    return this.s.dirtyRepos.all() as { repoId: number; dist: string }[];
  }

  dirtyUnits(repoId: number, dist: string): { units: DirtyUnit[]; maxSeq: number } {
    const rows = this.s.dirtyOf.all(repoId, dist) as (DirtyUnit & { seq: number })[];
    return { units: rows, maxSeq: rows.reduce((m, r) => Math.max(m, r.seq), 0) };
  }

  pending(repoId: number): number {
    return (this.s.pendingCount.get(repoId) as { n: number }).n;
  }

  components(repoId: number, dist: string): string[] {
    return (this.s.componentsOf.all(repoId, dist) as { component: string }[]).map((r) => r.component);
  }

  arches(repoId: number, dist: string): string[] {
    return (this.s.archesOf.all(repoId, dist) as { arch: string }[]).map((r) => r.arch);
  }

  /** The rows of one index unit in key order; `iterate` keeps only one row in flight at a time. */
  unitPackages(repoId: number, dist: string, component: string, arch: string): IterableIterator<IndexRow> {
    return this.s.unitPackages.iterate(repoId, dist, component, arch) as IterableIterator<IndexRow>;
  }

  /** The rows of one unit with lo <= (package, version, architecture) < hi, in key order. */
  unitRange(repoId: number, dist: string, component: string, arch: string, lo: SegmentKey, hi: SegmentKey | null): IterableIterator<IndexRow> {
    const args = { repoId, dist, component, arch, lp: lo[0], lv: lo[1], la: lo[2] };
    return (hi ? this.s.rangePackages.iterate({ ...args, hp: hi[0], hv: hi[1], ha: hi[2] }) : this.s.tailPackages.iterate(args)) as IterableIterator<IndexRow>;
  }

  /** The segments a file (the `segments` of a deb_files row) is joined from, in order. */
  segments(manifest: string): Segment[] {
    return (this.s.segmentsOf.all(manifest) as any[]).map((r) => ({
      id: r.id,
      lo: [r.lo_package, r.lo_version, r.lo_arch] as const,
      count: r.count,
      text: r.text,
      gz: r.gz,
      xz: { blocks: r.xz, records: r.xz_records, count: r.xz_blocks },
    }));
  }

  current(repoId: number, dist: string): { generation: number; builtAt: number } | undefined {
    return this.s.generation.get(repoId, dist) as { generation: number; builtAt: number } | undefined;
  }

  files(repoId: number, dist: string, generation: number): IndexFile[] {
    return this.s.filesOf.all(repoId, dist, generation) as IndexFile[];
  }

  /** One file of the current generation (or, by hash, of the previous one too); its bytes on demand. */
  read(repoId: number, dist: string, path: string): ReadFile | undefined {
    const byHash = /^(.*\/)by-hash\/(MD5Sum|SHA256|SHA512)\/([0-9a-f]{32,128})$/.exec(path);
    const row = (
      byHash
        ? this.s.byHash.get({ repoId, dist, dir: byHash[1]!.replace(/[\\%_]/g, (m) => '\\' + m) + '%', hash: byHash[3] })
        : this.s.fileAt.get(repoId, dist, path)
    ) as { path: string; size: number; sha256: string; segments: string | null; builtAt: number } | undefined;
    if (!row) return undefined;
    const body = () => {
      if (row.segments === null) {
        const data = this.s.blob.get(row.sha256) as Buffer | undefined;
        if (!data) throw new Error(`debian index ${dist}/${row.path}: its blob is missing`);
        return data;
      }
      const data = this.joinFile(row.path, row.segments);
      // Parts missing from a damaged database: a 500, never a shorter index under Release's size.
      if (data.length !== row.size) throw new Error(`debian index ${dist}/${row.path}: its segments give ${data.length} bytes, not ${row.size}`);
      return data;
    };
    return { size: row.size, sha256: row.sha256, builtAt: row.builtAt, body };
  }

  /** Packages, Packages.gz or Packages.xz (by the path's ending) joined from the segments a deb_files row names. */
  private joinFile(path: string, manifest: string): Buffer {
    if (path.endsWith('.xz')) return xzStream(this.s.xzParts.all(manifest) as XzBlocks[]);
    return Buffer.concat((path.endsWith('.gz') ? this.s.gzParts : this.s.textParts).all(manifest) as Buffer[]);
  }

  /**
   * Makes a new generation visible in one transaction: its new segments and blobs, its files, the
   * generation pointer, dropping generations older than the previous one (and the segments and
   * blobs only they used), and the dirty rows it consumed.
   */
  publish(repoId: number, dist: string, generation: number, files: NewFile[], consumedSeq: number): void {
    // apt revalidates InRelease with If-Modified-Since alone: each generation needs a later second.
    const now = nextModified(this.current(repoId, dist)?.builtAt).getTime();
    this.sql.transaction(() => {
      for (const f of files) {
        let manifest = f.segments ?? null;
        if (f.parts) {
          for (const g of f.parts) {
            g.id ??= Number(this.s.insertSegment.run(repoId, dist, ...g.lo, g.count, g.text, g.gz, g.xz.blocks, g.xz.records, g.xz.count).lastInsertRowid);
          }
          manifest = JSON.stringify(f.parts.map((g) => g.id));
        } else if (f.data) {
          this.s.insertBlob.run(f.sha256, f.data);
        }
        this.s.insertFile.run(repoId, dist, generation, f.path, f.size, f.md5, f.sha256, f.sha512, manifest);
      }
      this.s.upsertDist.run(repoId, dist, generation, now);
      this.s.dropOldFiles.run(repoId, dist, generation - 1);
      this.s.clearDirty.run(repoId, dist, consumedSeq);
      this.s.gcBlobs.run();
      this.s.gcSegments.run({ repoId, dist });
    }).immediate();
  }
}
