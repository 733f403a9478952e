import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { schema } from '@trove/core';

/** Milliseconds since the epoch, set by the server (same convention as core). */
const timestamp = (name: string) => integer(name, { mode: 'timestamp_ms' });
const userRef = () =>
  text('user_id')
    .notNull()
    .references(() => schema.users.id, { onDelete: 'cascade' });

/**
 * UI sign-ins (`tr_session`). The primary key is SHA-256 of the cookie's random value, so
 * a database reader cannot use a session. `credentials_version` is the user's at sign-in:
 * a password change or disabling the user bumps it and the session stops matching.
 */
export const uiSessions = sqliteTable(
  'ui_sessions',
  {
    tokenHash: text('token_hash').primaryKey(),
    id: text('id').notNull().unique(),
    userId: userRef(),
    credentialsVersion: integer('credentials_version').notNull(),
    /** Signed in with a password only, before any second factor exists (SPEC "Sign-in"). */
    setupOnly: integer('setup_only', { mode: 'boolean' }).notNull(),
    createdAt: timestamp('created_at').notNull(),
    expiresAt: timestamp('expires_at').notNull(),
  },
  (t) => [index('ui_sessions_user').on(t.userId), index('ui_sessions_expires').on(t.expiresAt)],
);

/** Confirmed TOTP authenticators. The seed is sealed with the master-key SecretBox (AAD `totp:<id>`). */
export const totpFactors = sqliteTable(
  'totp_factors',
  {
    id: text('id').primaryKey(),
    userId: userRef(),
    name: text('name').notNull(),
    secretSealed: text('secret_sealed').notNull(),
    createdAt: timestamp('created_at').notNull(),
  },
  (t) => [index('totp_factors_user').on(t.userId)],
);

/**
 * Time steps already accepted per user: the primary key makes "a code is accepted once"
 * atomic (a second request with the same code loses the insert). Pruned after the window.
 */
export const totpUsedSteps = sqliteTable(
  'totp_used_steps',
  {
    userId: userRef(),
    step: integer('step').notNull(),
    usedAt: timestamp('used_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.step] })],
);

/** WebAuthn credentials (passkeys). */
export const passkeys = sqliteTable(
  'passkeys',
  {
    id: text('id').primaryKey(),
    userId: userRef(),
    name: text('name').notNull(),
    /** WebAuthn credential id, base64url. */
    credentialId: text('credential_id').notNull().unique(),
    /** COSE public key, base64url. */
    publicKey: text('public_key').notNull(),
    counter: integer('counter').notNull().default(0),
    /** JSON array of transports reported at registration. */
    transports: text('transports').notNull().default('[]'),
    createdAt: timestamp('created_at').notNull(),
    lastUsedAt: timestamp('last_used_at'),
  },
  (t) => [index('passkeys_user').on(t.userId)],
);

/** One-time recovery codes: SHA-256 only (80 random bits each, so a plain hash suffices). */
export const recoveryCodes = sqliteTable(
  'recovery_codes',
  {
    userId: userRef(),
    codeHash: text('code_hash').notNull(),
    usedAt: timestamp('used_at'),
    createdAt: timestamp('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.codeHash] })],
);

/** Read tokens `trp_<id>_<secret>`: SHA-256 of the secret only. */
export const readTokens = sqliteTable(
  'read_tokens',
  {
    id: text('id').primaryKey(),
    userId: userRef(),
    name: text('name').notNull(),
    secretHash: text('secret_hash').notNull(),
    createdAt: timestamp('created_at').notNull(),
    expiresAt: timestamp('expires_at'),
    lastUsedAt: timestamp('last_used_at'),
  },
  (t) => [uniqueIndex('read_tokens_user_name').on(t.userId, t.name), index('read_tokens_created').on(t.userId, t.createdAt)],
);

export type UiSessionRow = typeof uiSessions.$inferSelect;
export type TotpRow = typeof totpFactors.$inferSelect;
export type PasskeyRow = typeof passkeys.$inferSelect;
export type ReadTokenRow = typeof readTokens.$inferSelect;
