import { and, eq, sql } from 'drizzle-orm';
import { badRequest, conflict, type CoreContext, type UserRow } from '@trove/core';
import { newId, newSecret, sameHash, sha256hex } from '../publish/crypto.js';
import { readTokens, type ReadTokenRow } from '../accounts/schema.js';
import { newestFirstPage, type Cursor } from '../paging.js';

/** SPEC "Last-used update": at most once per minute per token. */
const LAST_USED_EVERY_MS = 60_000;
const DAY_MS = 86_400_000;

export function parseReadToken(token: string): { id: string; secret: string } | null {
  const m = /^trp_([0-9a-f]{32})_([A-Za-z0-9_-]{43})$/.exec(token);
  return m ? { id: m[1]!, secret: m[2]! } : null;
}

export const readTokenJson = (t: ReadTokenRow) => ({
  id: t.id,
  name: t.name,
  created_at: t.createdAt.toISOString(),
  expires_at: t.expiresAt?.toISOString() ?? null,
  last_used_at: t.lastUsedAt?.toISOString() ?? null,
});

/**
 * Read tokens `trp_<id>_<secret>`. The id finds the row by primary key; SHA-256 of the
 * 256-bit secret is compared in constant time. No KDF: the secret is random, and this
 * check runs on every artifact GET.
 */
export class ReadTokenStore {
  /** Prepared once: `verify` runs on every artifact GET made with a token (bench W2). */
  private readonly byIdStmt;
  /**
   * Rows already read, by id. A row never changes after creation but for `lastUsedAt`, which
   * `verify` writes itself, and it leaves only through `remove` (or its user's deletion, which
   * `verify` sees through the user lookup), so this process's copy cannot go stale. It saves a
   * query on every GET; only the row is kept, never the secret, and each use still hashes it.
   */
  private readonly rows = new Map<string, ReadTokenRow>();

  constructor(private readonly ctx: CoreContext) {
    this.byIdStmt = ctx.db.select().from(readTokens).where(eq(readTokens.id, sql.placeholder('id'))).prepare();
  }

  create(user: UserRow, name: unknown, expiresInDays: unknown): { row: ReadTokenRow; token: string } {
    if (typeof name !== 'string' || !name.trim() || name.length > 100) throw badRequest('name is required (at most 100 characters)');
    let expiresAt: Date | null = null;
    if (expiresInDays !== undefined && expiresInDays !== null) {
      if (typeof expiresInDays !== 'number' || !Number.isInteger(expiresInDays) || expiresInDays < 1 || expiresInDays > 36500) {
        throw badRequest('expires_in_days must be an integer from 1 to 36500');
      }
      expiresAt = new Date(Date.now() + expiresInDays * DAY_MS);
    }
    const clean = name.trim();
    const taken = this.ctx.db.select({ id: readTokens.id }).from(readTokens).where(and(eq(readTokens.userId, user.id), eq(readTokens.name, clean))).get();
    if (taken) throw conflict(`you already have a token named ${clean}`);
    const id = newId();
    const secret = newSecret();
    const row = this.ctx.db
      .insert(readTokens)
      .values({ id, userId: user.id, name: clean, secretHash: sha256hex(secret), createdAt: new Date(), expiresAt })
      .returning()
      .get();
    return { row, token: `trp_${id}_${secret}` };
  }

  /** Hot path: one primary-key lookup, one SHA-256, one user lookup; a write at most once a minute. */
  verify(token: string): { row: ReadTokenRow; user: UserRow } | null {
    const parsed = parseReadToken(token);
    if (!parsed) return null;
    const row = this.rows.get(parsed.id) ?? this.remember(this.byIdStmt.get({ id: parsed.id }));
    if (!row || !sameHash(sha256hex(parsed.secret), row.secretHash)) return null;
    const now = Date.now();
    if (row.expiresAt && row.expiresAt.getTime() <= now) return null;
    const user = this.ctx.users.byId(row.userId);
    if (!user || user.disabled || user.kind !== 'local') return null;
    if (!row.lastUsedAt || now - row.lastUsedAt.getTime() >= LAST_USED_EVERY_MS) {
      this.ctx.db.update(readTokens).set({ lastUsedAt: new Date(now) }).where(eq(readTokens.id, row.id)).run();
      row.lastUsedAt = new Date(now);
    }
    return { row, user };
  }

  /** Newest first, keyset-paged on (created_at, id). */
  page(userId: string, opts: { after?: Cursor; limit: number }): { items: ReadTokenRow[]; last: Cursor | null } {
    return newestFirstPage(this.ctx.db, readTokens, [eq(readTokens.userId, userId)], opts);
  }

  remove(userId: string, id: string): boolean {
    const removed = this.ctx.db.delete(readTokens).where(and(eq(readTokens.id, id), eq(readTokens.userId, userId))).run().changes > 0;
    if (removed) this.rows.delete(id);
    return removed;
  }

  private remember(row: ReadTokenRow | undefined): ReadTokenRow | undefined {
    if (!row) return undefined;
    if (this.rows.size >= 10_000) this.rows.clear(); // a bound, not an eviction policy: rows are cheap to read again
    this.rows.set(row.id, row);
    return row;
  }
}
