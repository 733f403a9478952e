import { and, eq, sql } from 'drizzle-orm';
import { badRequest, conflict, GenerationCache, type CoreContext, type UserRow } from '@trove/core';
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
   * Rows already read, by id, until the next `access` generation (`remove` bumps it in its
   * transaction, here or in another process). A row never changes after creation but for
   * `lastUsedAt`, which `verify` and `touch` write themselves. Only the row is kept, never the
   * secret, and each `verify` still hashes it.
   */
  private readonly rows;

  constructor(private readonly ctx: CoreContext) {
    this.byIdStmt = ctx.db.select().from(readTokens).where(eq(readTokens.id, sql.placeholder('id'))).prepare();
    this.rows = new GenerationCache<ReadTokenRow>(ctx.generations, 'access', 10_000);
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
    const row = this.row(parsed.id);
    if (!row || !sameHash(sha256hex(parsed.secret), row.secretHash)) return null;
    const now = Date.now();
    if (row.expiresAt && row.expiresAt.getTime() <= now) return null;
    const user = this.ctx.users.byId(row.userId);
    if (!user || user.disabled || user.kind !== 'local') return null;
    this.markUsed(row, now);
    return { row, user };
  }

  /** Records a use of a token already verified (a cached resolution): the once-a-minute `last_used_at` write. */
  touch(id: string): void {
    const row = this.row(id);
    if (row) this.markUsed(row, Date.now());
  }

  /** Not a change any cache depends on: bumps no generation. */
  private markUsed(row: ReadTokenRow, now: number): void {
    if (row.lastUsedAt && now - row.lastUsedAt.getTime() < LAST_USED_EVERY_MS) return;
    this.ctx.db.update(readTokens).set({ lastUsedAt: new Date(now) }).where(eq(readTokens.id, row.id)).run();
    row.lastUsedAt = new Date(now);
  }

  private row(id: string): ReadTokenRow | undefined {
    return this.rows.through(id, () => this.byIdStmt.get({ id }));
  }

  /** Newest first, keyset-paged on (created_at, id). */
  page(userId: string, opts: { after?: Cursor; limit: number }): { items: ReadTokenRow[]; last: Cursor | null } {
    return newestFirstPage(this.ctx.db, readTokens, [eq(readTokens.userId, userId)], opts);
  }

  remove(userId: string, id: string): boolean {
    return this.ctx.db.transaction((tx) => {
      const removed = tx.delete(readTokens).where(and(eq(readTokens.id, id), eq(readTokens.userId, userId))).run().changes > 0;
      if (removed) this.ctx.generations.bump('access', tx);
      return removed;
    });
  }
}
