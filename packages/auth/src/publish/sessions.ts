import { and, eq, isNull, lt, gt, sql, type SQL } from 'drizzle-orm';
import type { CoreContext, PublishGrant, UserRow } from '@trove/core';
import { newestFirstPage, type Cursor } from '../paging.js';
import { newSessionToken, parseSessionToken, sameHash, sha256hex } from './crypto.js';
import { sessions, type SessionRow } from './schema.js';
import { withoutPasswordAdmin } from '../sso/config.js';

/** SPEC "Publish log retention": expired sessions stay 30 days after expiry. */
export const LOG_RETENTION_MS = 30 * 24 * 3_600_000;

export interface LogFilter {
  actor?: string;
  proof?: PublishGrant['proof'];
  repo?: string;
}

export type CloseReason = 'closed' | 'device revoked' | 'trust policy changed' | 'trust policy disabled' | 'trust policy deleted' | 'user disabled';

export interface NewSession {
  repo: string;
  /** The repository's format, echoed in the answer so a client knows how to upload with a token that cannot read /api/repos. */
  format: string;
  proof: PublishGrant['proof'];
  user: UserRow | null;
  actor: string;
  device?: { id: string; name: string };
  trust?: { id: string; name: string };
  claims?: Record<string, string>;
  /** Optional earlier end (e.g. the device's own expiry); never extends past session_ttl. */
  notAfter?: number;
}

/** What `POST /api/publish/sessions*` answers: the token appears here and nowhere else. */
export interface CreatedSession {
  id: string;
  token: string;
  repo: string;
  format: string;
  expires_at: string;
}

/**
 * Publish sessions and the publish log (the same rows). Every state change is one SQL
 * statement, so a revocation and a concurrent verification cannot interleave badly:
 * the verifier reads `closed_at` on every call and caches nothing. Closing bumps the `access`
 * generation in the same transaction, so a cached resolution of the token (auth's credential
 * cache) ends on the very next request, in this process and any other on the database.
 */
export class SessionStore {
  /** Prepared once: a cache miss for a publish token runs it. */
  private readonly byIdStmt;

  constructor(private readonly ctx: CoreContext) {
    this.byIdStmt = ctx.db.select().from(sessions).where(eq(sessions.id, sql.placeholder('id'))).prepare();
  }

  create(input: NewSession): CreatedSession {
    const now = Date.now();
    const ttl = this.ctx.settings.ms('publish.session_ttl');
    const expiresAt = Math.min(now + ttl, input.notAfter ?? Infinity);
    const { id, token, secretHash } = newSessionToken();
    this.ctx.db
      .insert(sessions)
      .values({
        id,
        secretHash,
        repo: input.repo,
        proof: input.proof,
        userId: input.user?.id ?? null,
        actor: input.actor,
        deviceId: input.device?.id ?? null,
        deviceName: input.device?.name ?? null,
        trustId: input.trust?.id ?? null,
        trustName: input.trust?.name ?? null,
        claims: input.claims ? JSON.stringify(input.claims) : null,
        createdAt: new Date(now),
        expiresAt: new Date(expiresAt),
      })
      .run();
    this.ctx.log.info({ session: id, repo: input.repo, proof: input.proof, actor: input.actor }, 'publish session opened');
    return { id, token, repo: input.repo, format: input.format, expires_at: new Date(expiresAt).toISOString() };
  }

  /**
   * Hot path (every artifact request with a `trs_` token): one primary-key lookup, one
   * SHA-256, a constant-time compare and one user lookup. Returns a fresh grant with the
   * user row as it is now, so a disabled user or a lost permission applies at once. Core's
   * write and read checks trust `grant.user.isAdmin`: a local admin's device or manual session
   * was opened on the password's say-so, so while `admin_password_login` is off its user comes
   * without the flag (`withoutPasswordAdmin`), also for sessions opened before the switch.
   */
  verify(token: string): PublishGrant | null {
    const parsed = parseSessionToken(token);
    if (!parsed) return null;
    const row = this.byIdStmt.get({ id: parsed.id });
    if (!row || !sameHash(sha256hex(parsed.secret), row.secretHash)) return null;
    if (row.closedAt || row.expiresAt.getTime() <= Date.now()) return null;
    let user: UserRow | null = null;
    if (row.proof !== 'oidc') {
      user = row.userId ? (this.ctx.users.byId(row.userId) ?? null) : null;
      if (!user || user.disabled) return null;
      user = withoutPasswordAdmin((k) => this.ctx.settings.get(k), user);
    }
    return { sessionId: row.id, repo: row.repo, proof: row.proof, user, actor: user ? user.username : row.actor, expiresAt: row.expiresAt.getTime() };
  }

  get(id: string): SessionRow | undefined {
    return this.ctx.db.select().from(sessions).where(eq(sessions.id, id)).get();
  }

  /** Closes one open session; false when it was not open. */
  close(id: string, reason: CloseReason): boolean {
    return this.closeWhere(eq(sessions.id, id), reason) > 0;
  }

  closeForDevice(deviceId: string, reason: CloseReason): number {
    return this.closeWhere(eq(sessions.deviceId, deviceId), reason);
  }

  /** Every open device or manual session of a user (disabled: re-enabling must not revive them). */
  closeForUser(userId: string, reason: CloseReason): number {
    return this.closeWhere(eq(sessions.userId, userId), reason);
  }

  closeForTrust(trustId: string, reason: CloseReason): number {
    return this.closeWhere(eq(sessions.trustId, trustId), reason);
  }

  private closeWhere(where: SQL, reason: CloseReason): number {
    const now = new Date();
    const res = this.ctx.db.transaction((tx) => {
      const r = tx
        .update(sessions)
        .set({ closedAt: now, closedReason: reason })
        .where(and(where, isNull(sessions.closedAt), gt(sessions.expiresAt, now)))
        .run();
      if (r.changes > 0) this.ctx.generations.bump('access', tx);
      return r;
    });
    if (res.changes > 0) this.ctx.log.info({ count: res.changes, reason }, 'publish sessions closed');
    return res.changes;
  }

  /**
   * Newest first, keyset-paged on (created_at, id). `userId` limits to one user's sessions;
   * the publish log's filters narrow by actor (user name or CI identity), proof and repository.
   */
  page(opts: { userId?: string; after?: Cursor; limit: number } & LogFilter): { items: SessionRow[]; last: Cursor | null } {
    const conds: SQL[] = [];
    if (opts.userId !== undefined) conds.push(eq(sessions.userId, opts.userId));
    if (opts.actor) conds.push(eq(sessions.actor, opts.actor));
    if (opts.proof) conds.push(eq(sessions.proof, opts.proof));
    if (opts.repo) conds.push(eq(sessions.repo, opts.repo));
    return newestFirstPage(this.ctx.db, sessions, conds, opts);
  }

  /** Deletes sessions that expired more than 30 days ago (closed ones expire too: expires_at is always set). */
  purge(now = Date.now()): number {
    return this.ctx.db.delete(sessions).where(lt(sessions.expiresAt, new Date(now - LOG_RETENTION_MS))).run().changes;
  }
}

export function sessionState(row: SessionRow, now = Date.now()): 'open' | 'closed' | 'expired' {
  if (row.closedAt) return 'closed';
  return row.expiresAt.getTime() <= now ? 'expired' : 'open';
}

/** An own-session list entry: no token, no secret hash. */
export function sessionJson(row: SessionRow) {
  return {
    id: row.id,
    repo: row.repo,
    proof: row.proof,
    actor: row.actor,
    state: sessionState(row),
    device: row.deviceId || row.deviceName ? { id: row.deviceId, name: row.deviceName } : null,
    created_at: row.createdAt.toISOString(),
    expires_at: row.expiresAt.toISOString(),
    closed_at: row.closedAt?.toISOString() ?? null,
    closed_reason: row.closedReason,
  };
}

/** A publish log entry: who, which proof, repo, times, why it closed, and the CI run's claims. */
export function logJson(row: SessionRow, username: string | null) {
  return {
    ...sessionJson(row),
    user: username,
    trust: row.trustId || row.trustName ? { id: row.trustId, name: row.trustName } : null,
    claims: row.claims ? (JSON.parse(row.claims) as Record<string, string>) : null,
  };
}
