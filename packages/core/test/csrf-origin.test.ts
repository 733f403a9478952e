import { afterEach, describe, expect, it } from 'vitest';
import { coreServer, json } from './helpers.js';
import type { TestServer } from '../src/testing/server.js';

let s: TestServer;
afterEach(() => s?.close());

const post = (origin: string) =>
  fetch(`${s.url}/api/repos`, { method: 'POST', headers: { ...json('adminpw'), Origin: origin }, body: JSON.stringify({ name: `r${Math.random().toString(36).slice(2, 8)}`, format: 'note' }) });

describe('CSRF guard compares the whole origin', () => {
  it('accepts the request\'s own origin and base_url\'s, and refuses another scheme or port on the same host', async () => {
    s = await coreServer({ TR_BASE_URL: 'https://trove.example.test' });
    expect((await post(`http://127.0.0.1:${s.port}`)).status).toBe(201);
    expect((await post('https://trove.example.test')).status).toBe(201);
    for (const origin of [`https://127.0.0.1:${s.port}`, 'http://trove.example.test', 'https://trove.example.test:8443', `http://127.0.0.1:${s.port + 1}`]) {
      const r = await post(origin);
      expect(r.status, origin).toBe(403);
      expect((await r.json()).error).toMatch(/cross-origin/);
    }
  });
});
