import { and, desc, eq, lt, or, type SQL } from 'drizzle-orm';
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { CoreContext } from '@trove/core';

/** Cursor of the newest-first lists: (created_at in ms, id) of the last row shown. */
export type Cursor = [number, string];
/** The time must be a whole number of milliseconds: Infinity or a fraction would become an invalid Date in the query. */
export const isCursor = (v: unknown): v is Cursor => Array.isArray(v) && v.length === 2 && Number.isSafeInteger(v[0]) && typeof v[1] === 'string';

type Listed = SQLiteTable & { createdAt: SQLiteColumn; id: SQLiteColumn };

/**
 * One page of `table`, newest first, keyset-paged on (created_at, id) so rows inserted
 * meanwhile neither repeat nor go missing. `conds` narrow the rows (owner, not revoked, ...).
 */
export function newestFirstPage<T extends Listed>(
  db: CoreContext['db'],
  table: T,
  conds: SQL[],
  opts: { after?: Cursor; limit: number },
): { items: T['$inferSelect'][]; last: Cursor | null } {
  const where = [...conds];
  if (opts.after) {
    const [t, id] = opts.after;
    where.push(or(lt(table.createdAt, new Date(t)), and(eq(table.createdAt, new Date(t)), lt(table.id, id)))!);
  }
  const rows = db
    .select()
    .from(table as SQLiteTable)
    .where(and(...where))
    .orderBy(desc(table.createdAt), desc(table.id))
    .limit(opts.limit + 1)
    .all() as T['$inferSelect'][];
  const more = rows.length > opts.limit;
  const items = more ? rows.slice(0, opts.limit) : rows;
  const last = items[items.length - 1] as { createdAt: Date; id: string } | undefined;
  return { items, last: more && last ? [last.createdAt.getTime(), last.id] : null };
}
