import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { schema } from '@trove/core';

/** Milliseconds since the epoch, set by the server (same convention as core). */
const timestamp = (name: string) => integer(name, { mode: 'timestamp_ms' });

/** External sources (Nexus instances). The password is sealed with core's SecretBox, bound to the source id. */
export const mirrorSources = sqliteTable('mirror_sources', {
  id: text('id').primaryKey(),
  name: text('name').notNull().unique(),
  baseUrl: text('base_url').notNull(),
  username: text('username').notNull(),
  passwordSealed: text('password_sealed').notNull(),
  /** mirroring -> cut_over (after the final sync succeeded). */
  state: text('state', { enum: ['mirroring', 'cut_over'] }).notNull().default('mirroring'),
  createdAt: timestamp('created_at').notNull(),
  updatedAt: timestamp('updated_at').notNull(),
  cutOverAt: timestamp('cut_over_at'),
});

/** Which source repository fills which Trove repository. A target is mirrored by one source repository at most. */
export const mirrorMappings = sqliteTable(
  'mirror_mappings',
  {
    sourceId: text('source_id')
      .notNull()
      .references(() => mirrorSources.id, { onDelete: 'cascade' }),
    sourceRepo: text('source_repo').notNull(),
    sourceFormat: text('source_format').notNull(),
    targetRepoId: integer('target_repo_id')
      .notNull()
      .references(() => schema.repos.id, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.sourceId, t.sourceRepo] }), uniqueIndex('mirror_mappings_target').on(t.targetRepoId)],
);

/**
 * What a source repository's files became in the target: the source's sha1 (its identity for
 * "unchanged") and where the file landed (Debian picks its own pool path). Written right after
 * each commit, so a restarted sync skips what is already here instead of downloading it again.
 */
export const mirrorItems = sqliteTable(
  'mirror_items',
  {
    sourceId: text('source_id')
      .notNull()
      .references(() => mirrorSources.id, { onDelete: 'cascade' }),
    sourceRepo: text('source_repo').notNull(),
    path: text('path').notNull(),
    sha1: text('sha1').notNull(),
    /** '' when the format skipped the file on purpose (Debian's dists/): nothing to delete later. */
    targetPath: text('target_path').notNull(),
    /** The sync that imported it: a resumed run of that sync counts it as fetched already, not as unchanged. */
    syncId: integer('sync_id'),
  },
  // By target path too: Debian files two source paths with the same package under one pool path, which goes only with the last of them.
  (t) => [primaryKey({ columns: [t.sourceId, t.sourceRepo, t.path] }), index('mirror_items_target').on(t.sourceId, t.sourceRepo, t.targetPath)],
);

export type SyncState = 'running' | 'done' | 'failed' | 'cancelled';

/** Sync runs, newest = highest id. A `running` row at start is resumed (the process died mid-sync). */
export const mirrorSyncs = sqliteTable(
  'mirror_syncs',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    sourceId: text('source_id')
      .notNull()
      .references(() => mirrorSources.id, { onDelete: 'cascade' }),
    /** manual, schedule or cutover (the final sync before the fence is lifted). */
    trigger: text('trigger', { enum: ['manual', 'schedule', 'cutover'] }).notNull(),
    state: text('state', { enum: ['running', 'done', 'failed', 'cancelled'] }).notNull(),
    error: text('error').notNull().default(''),
    startedAt: timestamp('started_at').notNull(),
    finishedAt: timestamp('finished_at'),
    /** How many times a restart picked this sync up again. */
    resumes: integer('resumes').notNull().default(0),
  },
  (t) => [index('mirror_syncs_source').on(t.sourceId, t.id)],
);

/** Per-repository counters of a sync. */
export const mirrorSyncRepos = sqliteTable(
  'mirror_sync_repos',
  {
    syncId: integer('sync_id')
      .notNull()
      .references(() => mirrorSyncs.id, { onDelete: 'cascade' }),
    sourceRepo: text('source_repo').notNull(),
    target: text('target').notNull(),
    state: text('state', { enum: ['pending', 'running', 'done', 'failed', 'cancelled'] }).notNull(),
    listed: integer('listed').notNull().default(0),
    fetched: integer('fetched').notNull().default(0),
    skipped: integer('skipped').notNull().default(0),
    deleted: integer('deleted').notNull().default(0),
    failed: integer('failed').notNull().default(0),
    bytes: integer('bytes').notNull().default(0),
    error: text('error').notNull().default(''),
  },
  (t) => [primaryKey({ columns: [t.syncId, t.sourceRepo] })],
);

/**
 * What one run of a sync listed from one source repository, while that repository imports: a path
 * listed twice is fetched once, side files are checked against the checksums declared for the file
 * they describe, the side files wait here until the listing is complete, and what the listing did
 * not name is what the source deleted. On disk, not in memory: a repository of a million files held
 * most of a gigabyte of heap. Emptied when the repository's import ends and before a run lists again.
 */
export const mirrorListing = sqliteTable(
  'mirror_listing',
  {
    syncId: integer('sync_id')
      .notNull()
      .references(() => mirrorSyncs.id, { onDelete: 'cascade' }),
    sourceRepo: text('source_repo').notNull(),
    path: text('path').notNull(),
    /** What the source declared for a file a side file may describe (null for side files themselves). */
    sha1: text('sha1'),
    md5: text('md5'),
    sha256: text('sha256'),
    sha512: text('sha512'),
    /** A side file to fetch once the listing is complete: its listing entry as JSON. */
    deferred: text('deferred'),
  },
  (t) => [primaryKey({ columns: [t.syncId, t.sourceRepo, t.path] })],
);

/** Files a sync did not import, with why. */
export const mirrorFailures = sqliteTable(
  'mirror_failures',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    syncId: integer('sync_id')
      .notNull()
      .references(() => mirrorSyncs.id, { onDelete: 'cascade' }),
    sourceRepo: text('source_repo').notNull(),
    path: text('path').notNull(),
    reason: text('reason').notNull(),
  },
  (t) => [index('mirror_failures_sync').on(t.syncId, t.id)],
);

export type SourceRow = typeof mirrorSources.$inferSelect;
export type MappingRow = typeof mirrorMappings.$inferSelect;
export type SyncRow = typeof mirrorSyncs.$inferSelect;
export type SyncRepoRow = typeof mirrorSyncRepos.$inferSelect;
