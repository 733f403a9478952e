import { afterEach, describe, expect, it } from 'vitest';
import { auth, coreServer } from './helpers.js';
import type { TestServer } from '../src/testing/server.js';

let s: TestServer;
afterEach(() => s?.close());

describe('GET /api/repos follows the list convention', () => {
  it('answers {items, next}: 50 by default, at most 200, keyset cursors in name order, for anonymous callers too', async () => {
    s = await coreServer();
    for (let i = 0; i < 205; i++) await s.ctx.repos.create({ name: `r${String(i).padStart(3, '0')}`, format: 'note', anonymous_read: i % 2 === 0 });
    const first = await (await fetch(`${s.url}/api/repos`, { headers: auth('adminpw') })).json();
    expect(first.items).toHaveLength(50);
    expect(first.items[0].name).toBe('r000');
    expect(first.next).toBeTruthy();
    const second = await (await fetch(`${s.url}/api/repos?after=${first.next}`, { headers: auth('adminpw') })).json();
    expect(second.items[0].name).toBe('r050');
    const capped = await (await fetch(`${s.url}/api/repos?limit=500`, { headers: auth('adminpw') })).json();
    expect(capped.items).toHaveLength(200);
    const last = await (await fetch(`${s.url}/api/repos?limit=500&after=${capped.next}`, { headers: auth('adminpw') })).json();
    expect(last).toMatchObject({ next: '' });
    expect(last.items.map((r: any) => r.name)).toEqual(['r200', 'r201', 'r202', 'r203', 'r204']);

    const names: string[] = [];
    let after = '';
    do {
      const p = await (await fetch(`${s.url}/api/repos?limit=40${after ? `&after=${after}` : ''}`)).json();
      names.push(...p.items.map((r: any) => r.name));
      after = p.next;
    } while (after);
    expect(names).toHaveLength(103);
    expect(names.every((n) => Number(n.slice(1)) % 2 === 0)).toBe(true);
    expect((await fetch(`${s.url}/api/repos?after=nonsense`)).status).toBe(400);
  });
});
