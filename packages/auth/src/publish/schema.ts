import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { schema } from '@trove/core';

/** Milliseconds since the epoch, set by the server (same convention as core). */
const timestamp = (name: string) => integer(name, { mode: 'timestamp_ms' });

/**
 * Pending device enrollments (RFC 8628 device authorization). Both codes are stored as
 * SHA-256 hex only: a database reader cannot poll for or approve someone's enrollment.
 */
export const enrollments = sqliteTable(
  'publish_enrollments',
  {
    id: text('id').primaryKey(),
    deviceCodeHash: text('device_code_hash').notNull(),
    userCodeHash: text('user_code_hash').notNull(),
    name: text('name').notNull(),
    kind: text('kind', { enum: ['gradle', 'maven'] }).notNull(),
    publicKey: text('public_key').notNull(),
    /** pending -> approved (device created) -> delivered (poll answered once). */
    state: text('state', { enum: ['pending', 'approved', 'delivered'] }).notNull().default('pending'),
    deviceId: text('device_id'),
    lastPollAt: timestamp('last_poll_at'),
    createdAt: timestamp('created_at').notNull(),
    expiresAt: timestamp('expires_at').notNull(),
  },
  (t) => [uniqueIndex('publish_enrollments_device_code').on(t.deviceCodeHash), uniqueIndex('publish_enrollments_user_code').on(t.userCodeHash)],
);

/** Enrolled device keys. Revoked rows stay (the publish log names the device) until their user is deleted. */
export const devices = sqliteTable(
  'publish_devices',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => schema.users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    kind: text('kind', { enum: ['gradle', 'maven'] }).notNull(),
    /** Raw 32-byte Ed25519 public key, base64url without padding. */
    publicKey: text('public_key').notNull(),
    createdAt: timestamp('created_at').notNull(),
    lastUsedAt: timestamp('last_used_at'),
    revokedAt: timestamp('revoked_at'),
  },
  (t) => [index('publish_devices_user').on(t.userId, t.createdAt)],
);

/** CI trust policies. `claims` and `repos` are JSON; `jwks` is an inline JWKS JSON or an https:// URL. */
export const trusts = sqliteTable('publish_trusts', {
  id: text('id').primaryKey(),
  name: text('name').notNull().unique(),
  issuer: text('issuer').notNull(),
  audience: text('audience').notNull(),
  claims: text('claims').notNull(),
  jwks: text('jwks').notNull(),
  repos: text('repos').notNull(),
  disabled: integer('disabled', { mode: 'boolean' }).notNull().default(false),
  createdAt: timestamp('created_at').notNull(),
  updatedAt: timestamp('updated_at').notNull(),
});

/**
 * Publish sessions, which are also the publish log. Only SHA-256 of the token secret is
 * stored. Names (actor, device, policy) are copied in so the log still reads after a
 * device or policy is gone; rows are purged 30 days after they expire.
 */
export const sessions = sqliteTable(
  'publish_sessions',
  {
    id: text('id').primaryKey(),
    secretHash: text('secret_hash').notNull(),
    repo: text('repo').notNull(),
    proof: text('proof', { enum: ['device', 'oidc', 'manual'] }).notNull(),
    userId: text('user_id').references(() => schema.users.id, { onDelete: 'set null' }),
    /** User name, or `ci:<repository or sub>` for CI sessions. */
    actor: text('actor').notNull(),
    deviceId: text('device_id').references(() => devices.id, { onDelete: 'set null' }),
    deviceName: text('device_name'),
    trustId: text('trust_id').references(() => trusts.id, { onDelete: 'set null' }),
    trustName: text('trust_name'),
    /** JSON of the matched CI claims (repository, workflow, ref, sha, ...), or null. */
    claims: text('claims'),
    createdAt: timestamp('created_at').notNull(),
    expiresAt: timestamp('expires_at').notNull(),
    closedAt: timestamp('closed_at'),
    closedReason: text('closed_reason'),
  },
  (t) => [
    index('publish_sessions_created').on(t.createdAt, t.id),
    index('publish_sessions_user').on(t.userId, t.createdAt),
    index('publish_sessions_device').on(t.deviceId),
    index('publish_sessions_trust').on(t.trustId),
    index('publish_sessions_expires').on(t.expiresAt),
  ],
);

export type SessionRow = typeof sessions.$inferSelect;
export type DeviceRow = typeof devices.$inferSelect;
export type EnrollmentRow = typeof enrollments.$inferSelect;
export type TrustRow = typeof trusts.$inferSelect;
