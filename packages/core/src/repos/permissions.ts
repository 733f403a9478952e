import { and, asc, eq, sql } from 'drizzle-orm';
import { GenerationCache, type Generations } from '../cache/generations.js';
import type { TroveDb } from '../db/open.js';
import { permissions, users, type PermissionLevel, type RepoRow } from '../db/schema.js';
import { badRequest, notFound } from '../errors.js';

/** Per-user `read`/`write` grants on repositories (`write` includes `read`). */
export class PermissionService {
  /** Prepared once: every private read and every device/manual write asks it. */
  private readonly levelStmt;
  /** Levels (and no-grants) by user and repository, until the next `access` generation. */
  private readonly levels;

  constructor(
    private readonly db: TroveDb,
    private readonly generations: Generations,
  ) {
    this.levels = new GenerationCache<PermissionLevel>(generations, 'access', 50_000);
    this.levelStmt = db
      .select({ level: permissions.level })
      .from(permissions)
      .where(and(eq(permissions.userId, sql.placeholder('userId')), eq(permissions.repoId, sql.placeholder('repoId'))))
      .prepare();
  }

  level(userId: string, repoId: number): PermissionLevel | null {
    return this.levels.through(`${repoId}\0${userId}`, () => this.levelStmt.get({ userId, repoId })?.level) ?? null;
  }

  /** Repo ids the user holds any grant on. */
  repoIds(userId: string): Set<number> {
    return new Set(this.db.select({ id: permissions.repoId }).from(permissions).where(eq(permissions.userId, userId)).all().map((r) => r.id));
  }

  list(repo: RepoRow): { username: string; level: PermissionLevel }[] {
    return this.db
      .select({ username: users.username, level: permissions.level })
      .from(permissions)
      .innerJoin(users, eq(users.id, permissions.userId))
      .where(eq(permissions.repoId, repo.id))
      .orderBy(asc(users.username))
      .all();
  }

  set(repo: RepoRow, username: string, level: unknown): { username: string; level: PermissionLevel } {
    if (level !== 'read' && level !== 'write') throw badRequest('level must be "read" or "write"');
    const user = this.db.select().from(users).where(eq(users.username, username)).get();
    if (!user) throw notFound(`user ${username} not found`);
    this.db.transaction((tx) => {
      this.generations.bump('access', tx);
      tx.insert(permissions)
        .values({ repoId: repo.id, userId: user.id, level })
        .onConflictDoUpdate({ target: [permissions.repoId, permissions.userId], set: { level } })
        .run();
    });
    return { username, level };
  }

  remove(repo: RepoRow, username: string): void {
    const user = this.db.select().from(users).where(eq(users.username, username)).get();
    if (!user) throw notFound(`user ${username} not found`);
    this.db.transaction((tx) => {
      this.generations.bump('access', tx);
      tx.delete(permissions).where(and(eq(permissions.repoId, repo.id), eq(permissions.userId, user.id))).run();
    });
  }
}
