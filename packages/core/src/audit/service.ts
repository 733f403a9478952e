import { and, desc, eq, gte, lt, or, type SQL } from 'drizzle-orm';
import type { Context } from 'hono';
import type { TroveDb } from '../db/open.js';
import { auditLog, type AuditRow } from '../db/schema.js';
import type { TroveEnv } from '../http/env.js';

export interface AuditEntry {
  /** Dotted verb: `login`, `login.failed`, `user.create`, `repo.update`, `permission.set`, `settings.update`, ... */
  action: string;
  /** User name of whoever acted; '' when unknown. */
  actor?: string;
  ip?: string;
  target?: string;
  /** Details for admins; callers must never put secrets here. */
  detail?: Record<string, unknown>;
}

/** Filters of the audit page; each narrows by exact value or (action, repo) by a dotted or slashed prefix. */
export interface AuditFilter {
  actor?: string;
  action?: string;
  repo?: string;
}

/**
 * `column` starts with `prefix`, as a range (prefix <= v < prefix with its last character
 * incremented) rather than LIKE, whose `_` and `%` would need escaping and whose case rules
 * differ between SQLite and PostgreSQL.
 */
function under(column: typeof auditLog.action | typeof auditLog.target, prefix: string): SQL {
  const end = prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
  return and(gte(column, prefix), lt(column, end))!;
}

export function auditJson(r: AuditRow) {
  return { id: r.id, at: r.at.toISOString(), action: r.action, actor: r.actor, ip: r.ip, target: r.target, detail: JSON.parse(r.detail) as Record<string, unknown> };
}

/**
 * The admin audit log (SPEC: client IPs appear only here). Append-only from the API's
 * point of view; read newest first with a keyset cursor on the row id.
 */
export class AuditLog {
  constructor(private readonly db: TroveDb) {}

  record(e: AuditEntry): void {
    this.db
      .insert(auditLog)
      .values({ at: new Date(), action: e.action, actor: e.actor ?? '', ip: e.ip ?? '', target: e.target ?? '', detail: JSON.stringify(e.detail ?? {}) })
      .run();
  }

  /** Records an entry for the request's caller and client IP. */
  recordFor(c: Context<TroveEnv>, e: Omit<AuditEntry, 'ip'>): void {
    const cred = c.get('credential');
    const actor = e.actor ?? (cred?.type === 'user' ? cred.user.username : cred?.type === 'publish' ? cred.grant.actor : '');
    this.record({ ...e, actor, ip: c.get('clientIp') ?? '' });
  }

  page(opts: { after?: number; limit: number } & AuditFilter): { items: AuditRow[]; last: number | null } {
    const where: SQL[] = [];
    if (opts.after !== undefined) where.push(lt(auditLog.id, opts.after));
    if (opts.actor) where.push(eq(auditLog.actor, opts.actor));
    // `repo` matches `repo.create`, `repo.update`...: the dotted verb's own name, or anything under it.
    if (opts.action) where.push(or(eq(auditLog.action, opts.action), under(auditLog.action, `${opts.action}.`))!);
    // A repository's own entries (`releases`) and those of things inside it (`releases/uma` for permissions).
    if (opts.repo) where.push(or(eq(auditLog.target, opts.repo), under(auditLog.target, `${opts.repo}/`))!);
    const rows = this.db
      .select()
      .from(auditLog)
      .where(and(...where))
      .orderBy(desc(auditLog.id))
      .limit(opts.limit + 1)
      .all();
    const more = rows.length > opts.limit;
    const items = more ? rows.slice(0, opts.limit) : rows;
    return { items, last: more ? items[items.length - 1]!.id : null };
  }
}
