import { describe, expect, it } from 'vitest';
import { counters, syncTotals } from './sync-counters';

describe('sync counters', () => {
  it('lists every numeric field, known counters in order', () => {
    expect(counters({ source_repo: 'r', failed: 1, bytes: 10, listed: 5, fetched: 4, retries: 2 })).toEqual([
      ['listed', 5],
      ['fetched', 4],
      ['failed', 1],
      ['bytes', 10],
      ['retries', 2],
    ]);
  });

  it('sums the repositories when the sync has no totals of its own', () => {
    const s = { id: 's', state: 'running', started_at: '', repos: [{ source_repo: 'a', target: 'a', imported: 2, failed: 1 }, { source_repo: 'b', target: 'b', imported: 3, failed: 0 }] };
    expect(syncTotals(s)).toMatchObject({ imported: 5, fetched: 5, failed: 1 });
  });
});
