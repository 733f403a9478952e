
import { sql } from 'drizzle-orm';
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

/** Milliseconds since the epoch; every timestamp column is UTC and set by the server. */
const timestamp = (name: string) => integer(name, { mode: 'timestamp_ms' });

export const settings = sqliteTable('settings', {
  key: text('key').primaryKey(),
  /** JSON of the value; for secrets, `enc:v1:` + base64 of AES-256-GCM ciphertext. */
  value: text('value').notNull(),
  updatedAt: timestamp('updated_at').notNull(),
});

export const users = sqliteTable('users', {
  id: text('id').primaryKey(),
  username: text('username').notNull().unique(),
  email: text('email').notNull().default(''),
  kind: text('kind', { enum: ['local', 'oidc'] }).notNull().default('local'),
  isAdmin: integer('is_admin', { mode: 'boolean' }).notNull().default(false),
  disabled: integer('disabled', { mode: 'boolean' }).notNull().default(false),
  /** Owned by the auth package (memory-hard KDF string); null for SSO users. */
  passwordHash: text('password_hash'),
  /** Bumped whenever a password changes or the user is disabled, so sessions can be invalidated cheaply. */
  credentialsVersion: integer('credentials_version').notNull().default(0),
  createdAt: timestamp('created_at').notNull(),
  updatedAt: timestamp('updated_at').notNull(),
});

export const repos = sqliteTable('repos', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  name: text('name').notNull().unique(),
  format: text('format').notNull(),
  /** JSON object validated by the format's schema. */
  config: text('config').notNull().default('{}'),
  anonymousRead: integer('anonymous_read', { mode: 'boolean' }).notNull().default(false),
  overwrite: text('overwrite', { enum: ['allow', 'deny'] }).notNull().default('deny'),
  /** Non-empty while an internal writer (the mirror) owns the repository. */
  lockedBy: text('locked_by').notNull().default(''),
  createdAt: timestamp('created_at').notNull(),
  updatedAt: timestamp('updated_at').notNull(),
});

export const permissions = sqliteTable(
  'permissions',
  {
    repoId: integer('repo_id')
      .notNull()
      .references(() => repos.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    level: text('level', { enum: ['read', 'write'] }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.repoId, t.userId] }), index('permissions_user').on(t.userId)],
);

export const assets = sqliteTable(
  'assets',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    repoId: integer('repo_id')
      .notNull()
      .references(() => repos.id, { onDelete: 'cascade' }),
    /** Normalised path inside the repository, no leading slash. */
    path: text('path').notNull(),
    blobKey: text('blob_key').notNull(),
    size: integer('size').notNull(),
    sha256: text('sha256').notNull(),
    sha1: text('sha1'),
    md5: text('md5'),
    contentType: text('content_type').notNull(),
    /** User name (or CI identity) of whoever wrote it; never an IP address. */
    uploader: text('uploader').notNull().default(''),
    createdAt: timestamp('created_at').notNull(),
    updatedAt: timestamp('updated_at').notNull(),
  },
  // (repo_id, path) is both the uniqueness rule and the index that serves prefix listings as range scans.
  (t) => [uniqueIndex('assets_repo_path').on(t.repoId, t.path), index('assets_blob').on(t.blobKey)],
);

/**
 * The admin audit log: sign-ins, failed attempts, and every change to users, permissions,
 * tokens, settings and repositories. The only place client IP addresses are kept.
 */
export const auditLog = sqliteTable(
  'audit_log',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    at: timestamp('at').notNull(),
    /** Dotted verb, e.g. `login.failed`, `repo.create`, `settings.update`. */
    action: text('action').notNull(),
    /** User name of whoever acted ('' when unknown, e.g. a failed sign-in for no such user). */
    actor: text('actor').notNull().default(''),
    ip: text('ip').notNull().default(''),
    /** What was acted on (user name, repo name, token id...). */
    target: text('target').notNull().default(''),
    /** JSON object with details; never secrets. */
    detail: text('detail').notNull().default('{}'),
  },
  (t) => [index('audit_log_at').on(t.at)],
);

/**
 * Long-running work (a storage move, a mirror sync, an index rebuild): one row per run, owned by
 * the job facility (`jobs/`). `progress` is the handler's checkpoint, so a restart resumes from it.
 */
export const jobs = sqliteTable(
  'jobs',
  {
    id: text('id').primaryKey(),
    kind: text('kind').notNull(),
    /** At most one unfinished job per key: the partial unique index enforces it even across nodes. */
    key: text('key').notNull(),
    state: text('state', { enum: ['running', 'cancelling', 'done', 'failed', 'cancelled'] }).notNull(),
    /** JSON; never secrets. */
    payload: text('payload').notNull().default('{}'),
    progress: text('progress').notNull().default('{}'),
    error: text('error'),
    createdAt: timestamp('created_at').notNull(),
    updatedAt: timestamp('updated_at').notNull(),
    finishedAt: timestamp('finished_at'),
  },
  (t) => [
    uniqueIndex('jobs_active_key').on(t.key).where(sql`state in ('running', 'cancelling')`),
    index('jobs_kind_created').on(t.kind, t.createdAt),
  ],
);

/** Blobs a storage move could not copy, paged by `GET /api/storage/moves/{id}/failures`. */
export const storageMoveFailures = sqliteTable(
  'storage_move_failures',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    moveId: text('move_id')
      .notNull()
      .references(() => jobs.id, { onDelete: 'cascade' }),
    assetId: integer('asset_id').notNull(),
    key: text('key').notNull(),
    reason: text('reason').notNull(),
  },
  (t) => [index('storage_move_failures_move').on(t.moveId, t.id)],
);

export type JobRow = typeof jobs.$inferSelect;
export type UserRow = typeof users.$inferSelect;
export type AuditRow = typeof auditLog.$inferSelect;
export type RepoRow = typeof repos.$inferSelect;
export type AssetRow = typeof assets.$inferSelect;
export type PermissionLevel = 'read' | 'write';


/**
 * Change counters every process sharing the database can see (one row, id 1). `access` moves
 * with every write to users, permissions, repositories, read tokens and publish sessions;
 * `assets` with every asset row written or deleted. In-memory caches on the read path
 * (core/src/cache/generations.ts) compare them before trusting an entry.
 */
export const generations = sqliteTable('generations', {
  id: integer('id').primaryKey(),
  access: integer('access').notNull().default(0),
  assets: integer('assets').notNull().default(0),
});
