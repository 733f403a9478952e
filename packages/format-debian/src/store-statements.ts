import { and, asc, count, eq, gte, inArray, isNotNull, lt, lte, min, ne, notExists, or, sql } from 'drizzle-orm';
import type { TroveDb } from '@trove/core';
// Names the driver types in the inferred statement types for declaration emit (TS2742).
import type {} from 'better-sqlite3';
import { debBlobs, debDirty, debDists, debEntries, debFiles, debPackages, debSegments } from './schema.js';

/** The facts of a Packages paragraph (`IndexRow`), as selected from deb_packages. */
const ROW = {
  package: debPackages.package,
  version: debPackages.version,
  architecture: debPackages.architecture,
  filename: debPackages.filename,
  size: debPackages.size,
  md5: debPackages.md5,
  sha256: debPackages.sha256,
  control: debPackages.control,
};
/**
 * The key a unit's rows are ordered and segments are cut on, as a row value (`(a, b, c) >= (x, y, z)`
 * means the same in SQLite and PostgreSQL). The order must be bytewise, as `compareKeys` assumes:
 * SQLite's default BINARY collation is; a PostgreSQL schema needs COLLATE "C" on these columns.
 */
const KEY = sql`(${debPackages.package}, ${debPackages.version}, ${debPackages.architecture})`;
const p = (name: string) => sql.placeholder(name);
/** Rows of a unit read per query: a unit is paged through in key order, never held in memory whole. */
export const PAGE = 1000;
/** Ids per `IN (...)` list: far below SQLite's (32,766) and PostgreSQL's (65,535) bound-parameter limits. */
const ID_CHUNK = 500;

/** Splits `ids` into lists of at most ID_CHUNK. */
export function chunks<T>(ids: T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < ids.length; i += ID_CHUNK) out.push(ids.slice(i, i + ID_CHUNK));
  return out;
}

/** The deb_segments ids a file's `segments` column (a JSON array) names, in the file's order. */
export const manifestIds = (manifest: string): number[] => JSON.parse(manifest) as number[];

/**
 * Every statement DebianStore runs more than once, built with drizzle's query builder and prepared
 * once (`sql.placeholder` for the values): index builds and reads run them thousands of times.
 */
export function prepareStatements(db: TroveDb) {
  /** One page of a unit's rows from a key on (`>=` the first page, `>` the ones after it), below `hi` if bounded. */
  const page = (from: 'first' | 'next', bounded: boolean) =>
    db
      .select(ROW)
      .from(debPackages)
      .innerJoin(
        debEntries,
        and(
          eq(debEntries.repoId, debPackages.repoId),
          eq(debEntries.dist, p('dist')),
          eq(debEntries.component, p('component')),
          eq(debEntries.packageId, debPackages.id),
        ),
      )
      .where(
        and(
          eq(debPackages.repoId, p('repoId')),
          inArray(debPackages.architecture, [p('arch'), 'all']),
          from === 'first' ? sql`${KEY} >= (${p('lp')}, ${p('lv')}, ${p('la')})` : sql`${KEY} > (${p('lp')}, ${p('lv')}, ${p('la')})`,
          bounded ? sql`${KEY} < (${p('hp')}, ${p('hv')}, ${p('ha')})` : undefined,
        ),
      )
      .orderBy(asc(debPackages.package), asc(debPackages.version), asc(debPackages.architecture))
      .limit(PAGE)
      .prepare();
  /** A file with the generation pointer it is read under, so both come from one snapshot. */
  const fileRead = {
    path: debFiles.path,
    size: debFiles.size,
    sha256: debFiles.sha256,
    segments: debFiles.segments,
    builtAt: debDists.builtAt,
  };
  const unitOf = db
    .selectDistinct({ dist: debDirty.dist, component: debDirty.component, arch: debDirty.arch })
    .from(debDirty)
    .where(eq(debDirty.repoId, p('repoId')))
    .as('units');
  return {
    packageByIdentity: db
      .select({ id: debPackages.id, ...ROW })
      .from(debPackages)
      .where(
        and(
          eq(debPackages.repoId, p('repoId')),
          eq(debPackages.package, p('package')),
          eq(debPackages.version, p('version')),
          eq(debPackages.architecture, p('architecture')),
        ),
      )
      .prepare(),
    packageByFilename: db
      .select({ id: debPackages.id, ...ROW })
      .from(debPackages)
      .where(and(eq(debPackages.repoId, p('repoId')), eq(debPackages.filename, p('filename'))))
      .limit(1)
      .prepare(),
    entriesOf: db.select({ dist: debEntries.dist, component: debEntries.component }).from(debEntries).where(eq(debEntries.packageId, p('id'))).prepare(),
    deletePackage: db.delete(debPackages).where(eq(debPackages.id, p('id'))).prepare(),
    insertPackage: db
      .insert(debPackages)
      .values({
        repoId: p('repoId'),
        package: p('package'),
        version: p('version'),
        architecture: p('architecture'),
        filename: p('filename'),
        size: p('size'),
        md5: p('md5'),
        sha256: p('sha256'),
        control: p('control'),
        createdAt: p('createdAt'),
      })
      .onConflictDoNothing({ target: [debPackages.repoId, debPackages.package, debPackages.version, debPackages.architecture] })
      .returning({ id: debPackages.id })
      .prepare(),
    insertEntry: db
      .insert(debEntries)
      .values({ repoId: p('repoId'), dist: p('dist'), component: p('component'), packageId: p('packageId') })
      .onConflictDoNothing()
      .returning({ packageId: debEntries.packageId })
      .prepare(),
    markDirty: db
      .insert(debDirty)
      .values({ repoId: p('repoId'), dist: p('dist'), component: p('component'), arch: p('arch'), package: p('package'), version: p('version') })
      .prepare(),
    // Each distribution once, in the order of its first mark.
    dirtyDists: db
      .select({ repoId: debDirty.repoId, dist: debDirty.dist })
      .from(debDirty)
      .groupBy(debDirty.repoId, debDirty.dist)
      .orderBy(min(debDirty.seq))
      .prepare(),
    dirtyOf: db
      .select({ seq: debDirty.seq, dist: debDirty.dist, component: debDirty.component, arch: debDirty.arch, package: debDirty.package, version: debDirty.version })
      .from(debDirty)
      .where(and(eq(debDirty.repoId, p('repoId')), eq(debDirty.dist, p('dist'))))
      .prepare(),
    clearDirty: db
      .delete(debDirty)
      .where(and(eq(debDirty.repoId, p('repoId')), eq(debDirty.dist, p('dist')), lte(debDirty.seq, p('seq'))))
      .prepare(),
    pendingCount: db.select({ n: count() }).from(unitOf).prepare(),
    publishedDists: db.select({ repoId: debDists.repoId, dist: debDists.dist }).from(debDists).prepare(),
    componentsOf: db
      .selectDistinct({ component: debEntries.component })
      .from(debEntries)
      .where(and(eq(debEntries.repoId, p('repoId')), eq(debEntries.dist, p('dist'))))
      .orderBy(asc(debEntries.component))
      .prepare(),
    archesOf: db
      .selectDistinct({ arch: debPackages.architecture })
      .from(debEntries)
      .innerJoin(debPackages, eq(debPackages.id, debEntries.packageId))
      .where(and(eq(debEntries.repoId, p('repoId')), eq(debEntries.dist, p('dist')), ne(debPackages.architecture, 'all')))
      .prepare(),
    firstPage: page('first', false),
    nextPage: page('next', false),
    firstRangePage: page('first', true),
    nextRangePage: page('next', true),
    insertSegment: db
      .insert(debSegments)
      .values({
        repoId: p('repoId'),
        dist: p('dist'),
        loPackage: p('loPackage'),
        loVersion: p('loVersion'),
        loArch: p('loArch'),
        count: p('count'),
        text: p('text'),
        gz: p('gz'),
        xz: p('xz'),
        xzRecords: p('xzRecords'),
        xzBlocks: p('xzBlocks'),
      })
      .returning({ id: debSegments.id })
      .prepare(),
    // The segment lists of a distribution's kept files, and its segments: what garbage collection compares.
    manifestsOf: db
      .select({ segments: debFiles.segments })
      .from(debFiles)
      .where(and(eq(debFiles.repoId, p('repoId')), eq(debFiles.dist, p('dist')), isNotNull(debFiles.segments)))
      .prepare(),
    segmentIdsOf: db
      .select({ id: debSegments.id })
      .from(debSegments)
      .where(and(eq(debSegments.repoId, p('repoId')), eq(debSegments.dist, p('dist'))))
      .prepare(),
    generation: db
      .select({ generation: debDists.generation, builtAt: debDists.builtAt })
      .from(debDists)
      .where(and(eq(debDists.repoId, p('repoId')), eq(debDists.dist, p('dist'))))
      .prepare(),
    filesOf: db
      .select({ path: debFiles.path, size: debFiles.size, md5: debFiles.md5, sha256: debFiles.sha256, sha512: debFiles.sha512, segments: debFiles.segments })
      .from(debFiles)
      .where(and(eq(debFiles.repoId, p('repoId')), eq(debFiles.dist, p('dist')), eq(debFiles.generation, p('generation'))))
      .prepare(),
    fileAt: db
      .select(fileRead)
      .from(debDists)
      .innerJoin(debFiles, and(eq(debFiles.repoId, debDists.repoId), eq(debFiles.dist, debDists.dist), eq(debFiles.generation, debDists.generation)))
      .where(and(eq(debDists.repoId, p('repoId')), eq(debDists.dist, p('dist')), eq(debFiles.path, p('path'))))
      .prepare(),
    // The files of the current and the previous generation with that hash; the caller picks the one under the path's directory.
    byHash: db
      .select(fileRead)
      .from(debDists)
      .innerJoin(debFiles, and(eq(debFiles.repoId, debDists.repoId), eq(debFiles.dist, debDists.dist), gte(debFiles.generation, sql`${debDists.generation} - 1`)))
      .where(
        and(
          eq(debDists.repoId, p('repoId')),
          eq(debDists.dist, p('dist')),
          or(eq(debFiles.md5, p('hash')), eq(debFiles.sha256, p('hash')), eq(debFiles.sha512, p('hash'))),
        ),
      )
      .prepare(),
    blob: db.select({ data: debBlobs.data }).from(debBlobs).where(eq(debBlobs.sha256, p('sha256'))).prepare(),
    insertBlob: db.insert(debBlobs).values({ sha256: p('sha256'), data: p('data') }).onConflictDoNothing().prepare(),
    insertFile: db
      .insert(debFiles)
      .values({
        repoId: p('repoId'),
        dist: p('dist'),
        generation: p('generation'),
        path: p('path'),
        size: p('size'),
        md5: p('md5'),
        sha256: p('sha256'),
        sha512: p('sha512'),
        segments: p('segments'),
      })
      .prepare(),
    upsertDist: db
      .insert(debDists)
      .values({ repoId: p('repoId'), dist: p('dist'), generation: p('generation'), builtAt: p('builtAt') })
      .onConflictDoUpdate({
        target: [debDists.repoId, debDists.dist],
        set: { generation: sql`excluded.generation`, builtAt: sql`excluded.built_at` },
      })
      .prepare(),
    dropOldFiles: db
      .delete(debFiles)
      .where(and(eq(debFiles.repoId, p('repoId')), eq(debFiles.dist, p('dist')), lt(debFiles.generation, p('generation'))))
      .prepare(),
    // Blobs no kept file of any distribution names (unchanged units share them across generations).
    gcBlobs: db
      .delete(debBlobs)
      .where(notExists(db.select({ sha256: debFiles.sha256 }).from(debFiles).where(eq(debFiles.sha256, debBlobs.sha256))))
      .prepare(),
  };
}
