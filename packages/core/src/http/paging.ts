import type { Context } from 'hono';
import { badRequest } from '../errors.js';

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 200;

/** `?limit=`: default 50, larger values capped at 200 (SPEC: "List paging"). */
export function pageLimit(raw: string | undefined): number {
  if (raw === undefined || raw === '') return DEFAULT_LIMIT;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw badRequest('limit must be a positive integer');
  return Math.min(n, MAX_LIMIT);
}

/** Opaque keyset cursors: base64url JSON of the last key, so clients cannot depend on their shape. */
export function encodeCursor(key: unknown): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

export function decodeCursor<T>(raw: string | undefined, check: (v: unknown) => v is T): T | undefined {
  if (raw === undefined || raw === '') return undefined;
  try {
    const v = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
    if (check(v)) return v;
  } catch {
    /* fall through */
  }
  throw badRequest('invalid cursor in "after"');
}

export const isString = (v: unknown): v is string => typeof v === 'string';

export function page<T, K>(items: T[], last: K | null) {
  return { items, next: last === null ? '' : encodeCursor(last) };
}

/** A list request's `?after=` (checked by `check`) and `?limit=`: every list route reads them here. */
export function listQuery<K>(c: Pick<Context, 'req'>, check: (v: unknown) => v is K): { after: K | undefined; limit: number } {
  return { after: decodeCursor(c.req.query('after'), check), limit: pageLimit(c.req.query('limit')) };
}

/**
 * One `{items, next}` page of a list held in memory (repositories, permissions, trust
 * policies), keyset-paged on a unique string key the list is sorted by: the same cursors and
 * limits as the database-backed lists, so clients page every list the same way.
 */
export function pageInMemory<T>(all: T[], keyOf: (item: T) => string, q: { after: string | undefined; limit: number }) {
  const sorted = [...all].sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0));
  const start = q.after === undefined ? 0 : sorted.findIndex((x) => keyOf(x) > q.after!);
  const rest = start < 0 ? [] : sorted.slice(start);
  const items = rest.slice(0, q.limit);
  return page(items, rest.length > q.limit ? keyOf(items[items.length - 1]!) : null);
}
