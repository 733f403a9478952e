import { and, eq } from 'drizzle-orm';
import { USERNAME, type CoreContext, type UserRow } from '@trove/core';
import type { Claims } from './admin-rights.js';
import { oidcIdentities } from './schema.js';

/** The `?error=` reasons of `GET /api/auth/oidc/callback` (SPEC). */
export type SsoFailureReason = 'not_authorized' | 'username_conflict' | 'invalid_username' | 'account_disabled' | 'sso_failed';

/** A refused SSO sign-in: `reason` goes to the browser, `why` only to the operator's log. */
export class SsoFailure extends Error {
  constructor(
    readonly reason: SsoFailureReason,
    readonly why: string,
  ) {
    super(why);
  }
}

/** `preferred_username`, else the local part of `email`. */
function userNameOf(claims: Claims): string | undefined {
  if (typeof claims.preferred_username === 'string' && claims.preferred_username) return claims.preferred_username;
  if (typeof claims.email === 'string' && claims.email.includes('@')) return claims.email.slice(0, claims.email.lastIndexOf('@'));
  return undefined;
}

/**
 * SSO users (kind `oidc`, no password): found by provider identity (`iss` + `sub`), created at
 * their first admin sign-in, and given or stripped admin rights at every sign-in.
 */
export class SsoUsers {
  constructor(private readonly ctx: CoreContext) {}

  /** The user for this identity, or an SsoFailure. `admin` is the verdict of `adminReason`. */
  signIn(issuer: string, claims: Claims & { sub: string }, admin: boolean): UserRow {
    const { db, users } = this.ctx;
    const email = typeof claims.email === 'string' ? claims.email.slice(0, 320) : '';
    const now = new Date();
    const link = db
      .select()
      .from(oidcIdentities)
      .where(and(eq(oidcIdentities.issuer, issuer), eq(oidcIdentities.subject, claims.sub)))
      .get();
    if (link) {
      const user = users.byId(link.userId)!;
      if (user.disabled) throw new SsoFailure('account_disabled', `user ${user.username} is disabled`);
      // Admin rights follow the provider at every sign-in: losing the claim takes them away here too.
      if (!admin) {
        if (user.isAdmin) users.update(user.id, { isAdmin: false });
        throw new SsoFailure('not_authorized', `user ${user.username} no longer carries the admin claim or a verified admin email`);
      }
      db.update(oidcIdentities).set({ lastLoginAt: now }).where(eq(oidcIdentities.userId, user.id)).run();
      return user.isAdmin && user.email === email ? user : users.update(user.id, { isAdmin: true, email });
    }
    // Nobody else signs in with SSO, so a non-admin gets no account at all.
    if (!admin) throw new SsoFailure('not_authorized', `subject ${claims.sub.slice(0, 100)} carries neither the admin claim nor a verified admin email`);
    const username = userNameOf(claims);
    if (!username || !USERNAME.test(username)) {
      throw new SsoFailure('invalid_username', `the provider's user name ${JSON.stringify((username ?? '').slice(0, 100))} is not a valid Trove user name`);
    }
    const holder = users.byName(username);
    if (holder) {
      // A local account, or another provider identity: taking it over would hand its rights to whoever the provider calls by that name.
      throw new SsoFailure('username_conflict', `user name ${username} is held by a ${holder.kind === 'local' ? 'local account' : 'different SSO identity'}`);
    }
    return db.transaction(() => {
      const user = users.create({ username, email, kind: 'oidc', isAdmin: true, passwordHash: null });
      db.insert(oidcIdentities).values({ issuer, subject: claims.sub, userId: user.id, createdAt: now, lastLoginAt: now }).run();
      return user;
    });
  }
}
