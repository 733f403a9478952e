import { afterEach, describe, expect, it } from 'vitest';
import { auth, coreServer, json } from './helpers.js';
import type { TestServer } from '../src/testing/server.js';

let s: TestServer;
afterEach(() => s?.close());

const patch = (body: unknown) => fetch(`${s.url}/api/settings`, { method: 'PATCH', headers: json('adminpw'), body: JSON.stringify(body) });
const prefixNow = async () =>
  ((await (await fetch(`${s.url}/api/settings`, { headers: auth('adminpw') })).json()) as any).groups.flatMap((g: any) => g.settings).find((i: any) => i.key === 's3.prefix').value;

describe('s3.prefix', () => {
  it('refuses `.`, `..` and empty segments with 400, as the driver refuses such keys, and saves nothing', async () => {
    s = await coreServer();
    for (const bad of ['a/./b', '.', 'a//b', 'x/../y', './a', 'a/.']) {
      const r = await patch({ 's3.prefix': bad, 'log.level': 'warn' });
      expect(r.status, bad).toBe(400);
      expect(((await r.json()) as any).fields, bad).toHaveProperty('s3.prefix');
      const t = await fetch(`${s.url}/api/settings/storage/test`, { method: 'POST', headers: json('adminpw'), body: JSON.stringify({ 's3.prefix': bad }) });
      expect(t.status, bad).toBe(400);
    }
    expect(await prefixNow()).toBe('');
    // Slashes at the ends are trimmed; dots inside a segment are an ordinary name.
    expect((await patch({ 's3.prefix': '/trove/v1.2/' })).status).toBe(200);
    expect(await prefixNow()).toBe('trove/v1.2');
  });
});

describe('fs.root', () => {
  it('must be an absolute path: a relative one would depend on where the server was started', async () => {
    s = await coreServer();
    for (const bad of ['blobs', './blobs', '../elsewhere']) {
      const r = await patch({ 'fs.root': bad });
      expect(r.status, bad).toBe(400);
      expect(((await r.json()) as any).fields['fs.root'], bad).toMatch(/absolute/);
    }
  });
});
