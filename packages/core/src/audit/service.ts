import { desc, lt } from 'drizzle-orm';
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

  page(opts: { after?: number; limit: number }): { items: AuditRow[]; last: number | null } {
    const rows = this.db
      .select()
      .from(auditLog)
      .where(opts.after !== undefined ? lt(auditLog.id, opts.after) : undefined)
      .orderBy(desc(auditLog.id))
      .limit(opts.limit + 1)
      .all();
    const more = rows.length > opts.limit;
    const items = more ? rows.slice(0, opts.limit) : rows;
    return { items, last: more ? items[items.length - 1]!.id : null };
  }
}
