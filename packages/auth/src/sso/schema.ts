import { integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { schema } from '@trove/core';

/**
 * Which provider identity an SSO user is (OIDC Core: `iss` + `sub` is the only stable
 * identifier; `preferred_username` and `email` may change or be reused). The user name
 * is taken once, at the first sign-in; later sign-ins find the user through this row.
 */
export const oidcIdentities = sqliteTable(
  'oidc_identities',
  {
    issuer: text('issuer').notNull(),
    subject: text('subject').notNull(),
    userId: text('user_id')
      .notNull()
      .unique()
      .references(() => schema.users.id, { onDelete: 'cascade' }),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    lastLoginAt: integer('last_login_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.issuer, t.subject] })],
);

export type OidcIdentityRow = typeof oidcIdentities.$inferSelect;
