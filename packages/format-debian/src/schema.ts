import { blob, index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { schema } from '@trove/core';

const timestamp = (name: string) => integer(name, { mode: 'timestamp_ms' });

/**
 * One row per (package, version, architecture) in a repository: the pool is shared by all
 * distributions, as in Debian. `control` is the package's control paragraph as uploaded
 * (minus any index-only fields), so building an index never re-reads a .deb.
 */
export const debPackages = sqliteTable(
  'deb_packages',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    repoId: integer('repo_id')
      .notNull()
      .references(() => schema.repos.id, { onDelete: 'cascade' }),
    package: text('package').notNull(),
    version: text('version').notNull(),
    architecture: text('architecture').notNull(),
    /** Pool path, relative to the repository root (`pool/main/h/hello/hello_1.0_amd64.deb`). */
    filename: text('filename').notNull(),
    size: integer('size').notNull(),
    md5: text('md5').notNull(),
    sha256: text('sha256').notNull(),
    control: text('control').notNull(),
    createdAt: timestamp('created_at').notNull(),
  },
  (t) => [
    uniqueIndex('deb_packages_identity').on(t.repoId, t.package, t.version, t.architecture),
    // A pool file's package (removals, the start's orphan sweep): without it each lookup reads the repository's every package.
    index('deb_packages_filename').on(t.repoId, t.filename),
  ],
);

/** Which packages a distribution's component lists. */
export const debEntries = sqliteTable(
  'deb_entries',
  {
    repoId: integer('repo_id')
      .notNull()
      .references(() => schema.repos.id, { onDelete: 'cascade' }),
    dist: text('dist').notNull(),
    component: text('component').notNull(),
    packageId: integer('package_id')
      .notNull()
      .references(() => debPackages.id, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.repoId, t.dist, t.component, t.packageId] })],
);

/**
 * Index units waiting for a rebuild. `arch` is a real architecture, `all` (every architecture
 * of the component), or '' with component '' (re-sign the distribution's Release only).
 * Persisted so a restart finishes what a crash interrupted.
 */
export const debDirty = sqliteTable(
  'deb_dirty',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    repoId: integer('repo_id')
      .notNull()
      .references(() => schema.repos.id, { onDelete: 'cascade' }),
    dist: text('dist').notNull(),
    component: text('component').notNull(),
    arch: text('arch').notNull(),
    /** The uploaded package's identity (with `arch`): which segment of the unit changed. NULL: the whole unit. */
    package: text('package'),
    version: text('version'),
  },
  (t) => [index('deb_dirty_unit').on(t.repoId, t.dist, t.component, t.arch)],
);

/** The generation of a distribution's index files that readers see. */
export const debDists = sqliteTable(
  'deb_dists',
  {
    repoId: integer('repo_id')
      .notNull()
      .references(() => schema.repos.id, { onDelete: 'cascade' }),
    dist: text('dist').notNull(),
    generation: integer('generation').notNull(),
    builtAt: timestamp('built_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.repoId, t.dist] })],
);

/**
 * Index files per generation, path relative to `dists/{dist}/`. The current and the previous
 * generation are kept, so `by-hash/` lookups of a client that fetched the previous Release still work.
 */
export const debFiles = sqliteTable(
  'deb_files',
  {
    repoId: integer('repo_id')
      .notNull()
      .references(() => schema.repos.id, { onDelete: 'cascade' }),
    dist: text('dist').notNull(),
    generation: integer('generation').notNull(),
    path: text('path').notNull(),
    size: integer('size').notNull(),
    md5: text('md5').notNull(),
    sha256: text('sha256').notNull(),
    sha512: text('sha512').notNull(),
    /** JSON array of deb_segments ids the file is joined from (Packages, .gz, .xz); NULL: the file is a deb_blobs row. */
    segments: text('segments'),
  },
  (t) => [primaryKey({ columns: [t.repoId, t.dist, t.generation, t.path] }), index('deb_files_sha256').on(t.sha256)],
);

/** Content of index files other than segmented ones, addressed by sha256 (unchanged units share rows across generations). */
export const debBlobs = sqliteTable('deb_blobs', {
  sha256: text('sha256').primaryKey(),
  data: blob('data', { mode: 'buffer' }).notNull(),
});

/**
 * A segment of a unit's Packages file: the packages of one key range ((package, version,
 * architecture) order), its text, its gzip member and its xz blocks (see segments.ts). It starts at
 * its `lo` key and ends where the next segment of the file starts; a unit's first starts at ('', '', '').
 * Immutable: a changed range gets a new row. deb_files rows of Packages, Packages.gz and Packages.xz
 * name their segments instead of holding a blob, so an upload writes one segment, not the unit;
 * rows no kept generation names are deleted when a generation is published.
 */
export const debSegments = sqliteTable(
  'deb_segments',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    repoId: integer('repo_id')
      .notNull()
      .references(() => schema.repos.id, { onDelete: 'cascade' }),
    dist: text('dist').notNull(),
    loPackage: text('lo_package').notNull(),
    loVersion: text('lo_version').notNull(),
    loArch: text('lo_arch').notNull(),
    count: integer('count').notNull(),
    text: blob('text', { mode: 'buffer' }).notNull(),
    gz: blob('gz', { mode: 'buffer' }).notNull(),
    /** The xz blocks (with padding) and their index records, without stream header, index or footer. */
    xz: blob('xz', { mode: 'buffer' }).notNull(),
    xzRecords: blob('xz_records', { mode: 'buffer' }).notNull(),
    xzBlocks: integer('xz_blocks').notNull(),
  },
  (t) => [index('deb_segments_dist').on(t.repoId, t.dist)],
);
