import type { MirrorSync } from '../../../api/types';

/** Known counters first, in the order a sync moves through them; any other numeric field follows. */
const ORDER = ['listed', 'total', 'fetched', 'imported', 'skipped', 'skipped_unchanged', 'deleted', 'failed', 'bytes'];
/** Numbers that are not counters (how often a sync was resumed is shown apart). */
const SKIP = new Set(['id', 'resumes']);

/**
 * The numeric counters of a sync or of one of its repositories. The SPEC leaves the sync
 * record's fields open, so every number the server sends is shown, the known ones in order.
 */
export function counters(o: object): [string, number][] {
  const entries = Object.entries(o).filter((e): e is [string, number] => typeof e[1] === 'number' && !SKIP.has(e[0]));
  const rank = (k: string) => (ORDER.includes(k) ? ORDER.indexOf(k) : ORDER.length);
  return entries.sort((a, b) => rank(a[0]) - rank(b[0]));
}

/** Whole-sync figures: the sync's own counters, or the sums of its repositories'. `fetched` falls back to `imported`. */
export function syncTotals(s: MirrorSync): Record<string, number> {
  const own = Object.fromEntries(counters(s));
  const sums: Record<string, number> = {};
  for (const r of s.repos ?? []) for (const [k, v] of counters(r)) sums[k] = (sums[k] ?? 0) + v;
  const all = { ...sums, ...own };
  if (all.fetched === undefined && all.imported !== undefined) all.fetched = all.imported;
  return all;
}
