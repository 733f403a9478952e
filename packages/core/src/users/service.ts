import { asc, count, eq, gt, sql } from 'drizzle-orm';
import { randomUUID } from 'node:crypto';
import type { Generations } from '../cache/generations.js';
import { GenerationCache } from '../cache/generations.js';
import type { TroveDb } from '../db/open.js';
import { users, type UserRow } from '../db/schema.js';
import { badRequest, conflict, notFound } from '../errors.js';

export const USERNAME = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;

export function userJson(u: UserRow) {
  return {
    id: u.id,
    username: u.username,
    email: u.email,
    kind: u.kind,
    is_admin: u.isAdmin,
    disabled: u.disabled,
    created_at: u.createdAt.toISOString(),
  };
}

/**
 * User records. Passwords and second factors belong to the auth package, which
 * writes `passwordHash` through `setPasswordHash`; core only stores it.
 */
export class UserService {
  /** Prepared once: credential checks run these on every authenticated artifact GET (bench W2). */
  private readonly byNameStmt;
  private readonly byIdStmt;
  /** Rows (and absences) already read, until the next write to users, permissions, tokens or repos anywhere (the `access` generation). */
  private readonly byNameCache;
  private readonly byIdCache;

  constructor(
    private readonly db: TroveDb,
    private readonly generations: Generations,
  ) {
    this.byNameStmt = db.select().from(users).where(eq(users.username, sql.placeholder('username'))).prepare();
    this.byIdStmt = db.select().from(users).where(eq(users.id, sql.placeholder('id'))).prepare();
    this.byNameCache = new GenerationCache<UserRow>(generations, 'access', 10_000);
    this.byIdCache = new GenerationCache<UserRow>(generations, 'access', 10_000);
  }

  byName(username: string): UserRow | undefined {
    return this.byNameCache.through(username, () => this.byNameStmt.get({ username }));
  }
  byId(id: string): UserRow | undefined {
    return this.byIdCache.through(id, () => this.byIdStmt.get({ id }));
  }
  require(username: string): UserRow {
    const u = this.byName(username);
    if (!u) throw notFound(`user ${username} not found`);
    return u;
  }
  count(): number {
    return this.db.select({ n: count() }).from(users).get()?.n ?? 0;
  }
  page(opts: { after?: string; limit: number }): { items: UserRow[]; last: string | null } {
    const rows = this.db
      .select()
      .from(users)
      .where(opts.after !== undefined ? gt(users.username, opts.after) : undefined)
      .orderBy(asc(users.username))
      .limit(opts.limit + 1)
      .all();
    const more = rows.length > opts.limit;
    const items = more ? rows.slice(0, opts.limit) : rows;
    return { items, last: more ? items[items.length - 1]!.username : null };
  }

  create(input: { username: string; email?: string; kind?: 'local' | 'oidc'; isAdmin?: boolean; passwordHash?: string | null }): UserRow {
    if (!USERNAME.test(input.username)) throw badRequest('username must be 1-64 characters of letters, digits, ".", "_", "@" or "-"');
    if (this.byName(input.username)) throw conflict(`user ${input.username} already exists`);
    const now = new Date();
    return this.db.transaction((tx) => {
      this.generations.bump('access', tx);
      return tx
      .insert(users)
      .values({
        id: randomUUID(),
        username: input.username,
        email: input.email ?? '',
        kind: input.kind ?? 'local',
        isAdmin: input.isAdmin ?? false,
        passwordHash: input.passwordHash ?? null,
        createdAt: now,
        updatedAt: now,
      })
      .returning()
      .get();
    });
  }

  update(id: string, set: Partial<Pick<UserRow, 'email' | 'isAdmin' | 'disabled' | 'passwordHash'>>): UserRow {
    const bump = set.passwordHash !== undefined || set.disabled === true;
    const row = this.db.transaction((tx) => {
      this.generations.bump('access', tx);
      return tx
        .update(users)
        .set({ ...set, updatedAt: new Date(), ...(bump ? { credentialsVersion: sqlIncrement() } : {}) })
        .where(eq(users.id, id))
        .returning()
        .get();
    });
    if (!row) throw notFound('user not found');
    return row;
  }
}

const sqlIncrement = () => sql`${users.credentialsVersion} + 1` as unknown as number;
