import { and, eq, lt, ne, sql } from 'drizzle-orm';
import { randomBytes } from 'node:crypto';
import type { CoreContext, UserRow } from '@trove/core';
import { newId, sha256hex } from '../publish/crypto.js';
import { uiSessions, type UiSessionRow } from '../accounts/schema.js';

export interface ResolvedSession {
  session: UiSessionRow;
  user: UserRow;
}

/**
 * UI sign-ins. The cookie carries 256 random bits; the table keeps only their SHA-256
 * (looked up by primary key, so no timing side channel on the secret itself). A session
 * lives exactly `session_ttl` from sign-in (absolute, never extended) and ends at once
 * when its user is disabled or changes password (credentials version moves on).
 */
export class UiSessionStore {
  /** Prepared once: `resolve` runs on every `/api/` request the web UI makes. */
  private readonly byHashStmt;

  constructor(private readonly ctx: CoreContext) {
    this.byHashStmt = ctx.db.select().from(uiSessions).where(eq(uiSessions.tokenHash, sql.placeholder('hash'))).prepare();
  }

  /**
   * `lifetime`: the sign-in's absolute lifetime in ms (`session_ttl` unless SSO passes `oidc.session_ttl`),
   * or the moment it ends (a session replacing another keeps that one's end).
   */
  create(user: UserRow, setupOnly: boolean, lifetime: number | Date = this.ctx.settings.ms('session_ttl')): { token: string; session: UiSessionRow } {
    const token = randomBytes(32).toString('base64url');
    const now = Date.now();
    const session = this.ctx.db
      .insert(uiSessions)
      .values({
        tokenHash: sha256hex(token),
        id: newId(),
        userId: user.id,
        credentialsVersion: user.credentialsVersion,
        setupOnly,
        createdAt: new Date(now),
        expiresAt: lifetime instanceof Date ? lifetime : new Date(now + lifetime),
      })
      .returning()
      .get();
    return { token, session };
  }

  resolve(token: string): ResolvedSession | null {
    if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return null;
    const session = this.byHashStmt.get({ hash: sha256hex(token) });
    if (!session || session.expiresAt.getTime() <= Date.now()) return null;
    const user = this.ctx.users.byId(session.userId);
    if (!user || user.disabled || user.credentialsVersion !== session.credentialsVersion) return null;
    return { session, user };
  }

  /**
   * The first second factor was just proven on a setup-only session: it becomes a full session.
   * False when the session no longer exists (it ended while the request was in flight).
   */
  upgrade(id: string): boolean {
    return this.ctx.db.update(uiSessions).set({ setupOnly: false }).where(eq(uiSessions.id, id)).run().changes > 0;
  }

  /**
   * The user now has a second factor: every setup-only session of theirs (a password alone) ends,
   * except `keep`, the one that added the factor. Otherwise a leaked password used before the user
   * enrolled would keep a session that can remove their factor and add its own.
   */
  endSetupOnly(userId: string, keep?: string): void {
    const others = keep ? ne(uiSessions.id, keep) : undefined;
    this.ctx.db.delete(uiSessions).where(and(eq(uiSessions.userId, userId), eq(uiSessions.setupOnly, true), others)).run();
  }

  /** When the session ends by itself, if it exists. */
  expiresAtOf(id: string): Date | undefined {
    return this.ctx.db.select({ expiresAt: uiSessions.expiresAt }).from(uiSessions).where(eq(uiSessions.id, id)).get()?.expiresAt;
  }

  /** Ends one session (logout); false when it did not exist. */
  end(token: string): boolean {
    return this.ctx.db.delete(uiSessions).where(eq(uiSessions.tokenHash, sha256hex(token))).run().changes > 0;
  }

  endById(id: string): void {
    this.ctx.db.delete(uiSessions).where(eq(uiSessions.id, id)).run();
  }

  /** Ends every session of the user (their second factors were reset). */
  endAllOf(userId: string): void {
    this.ctx.db.delete(uiSessions).where(eq(uiSessions.userId, userId)).run();
  }

  purge(now = Date.now()): number {
    return this.ctx.db.delete(uiSessions).where(lt(uiSessions.expiresAt, new Date(now))).run().changes;
  }

  /** Deletes the user's sessions from before their current credentials version (housekeeping after a password change or disabling). */
  endStale(user: UserRow): void {
    this.ctx.db.delete(uiSessions).where(and(eq(uiSessions.userId, user.id), lt(uiSessions.credentialsVersion, user.credentialsVersion))).run();
  }
}
