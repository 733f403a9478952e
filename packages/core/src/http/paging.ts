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
