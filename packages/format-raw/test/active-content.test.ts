import { afterEach, describe, expect, it } from 'vitest';
import { basic } from '@trove/core/testing/resolver';
import type { TestServer } from '@trove/core/testing/server';
import { startFilesServer } from './files-server.js';

let s: TestServer | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

const SANDBOX = "sandbox; default-src 'none'";

describe('uploaded files never run as pages of Trove', () => {
  const active: [string, string][] = [
    ['index.html', 'text/html'],
    ['logo.svg', 'image/svg+xml'],
    ['feed.xml', 'application/xml'],
    ['page.xhtml', 'application/xhtml+xml'],
    ['app.js', 'text/javascript'],
    ['old.js', 'application/x-javascript'],
    ['style.css', 'text/css'],
  ];
  for (const [name, type] of active) {
    it(`serves ${name} (${type}) as an attachment under a sandbox CSP with nosniff`, async () => {
      s = await startFilesServer();
      const put = await fetch(`${s.url}/raw/files/${name}`, { method: 'PUT', body: '<script>alert(1)</script>', headers: { Authorization: basic('pub'), 'Content-Type': type } });
      expect(put.status).toBe(201);
      expect(put.headers.get('content-security-policy')).toBe(SANDBOX);
      // GET three times: a repeated small GET is answered from memory (answer-cache.ts), and must carry the same headers.
      for (const method of ['GET', 'GET', 'GET', 'HEAD']) {
        const r = await fetch(`${s.url}/raw/files/${name}`, { method });
        expect(r.status).toBe(200);
        expect(r.headers.get('content-disposition')).toMatch(/^attachment/);
        expect(r.headers.get('content-security-policy')).toBe(SANDBOX);
        expect(r.headers.get('x-content-type-options')).toBe('nosniff');
      }
    });
  }

  it('serves inert types inline, and errors of format routes carry the same headers', async () => {
    s = await startFilesServer();
    await fetch(`${s.url}/raw/files/notes.txt`, { method: 'PUT', body: 'hello', headers: { Authorization: basic('pub') } });
    await fetch(`${s.url}/raw/files/app.tar.gz`, { method: 'PUT', body: 'x', headers: { Authorization: basic('pub') } });
    for (const path of ['notes.txt', 'app.tar.gz']) {
      const r = await fetch(`${s.url}/raw/files/${path}`);
      expect(r.headers.get('content-disposition')).toBeNull();
      expect(r.headers.get('content-security-policy')).toBe(SANDBOX);
    }
    const missing = await fetch(`${s.url}/raw/files/nope.html`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-security-policy')).toBe(SANDBOX);
    expect(missing.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('refuses to be loaded as a script, style sheet or worker of a page: nothing uploaded runs inside Trove\'s UI', async () => {
    s = await startFilesServer();
    await fetch(`${s.url}/raw/files/app.js`, { method: 'PUT', body: 'alert(1)', headers: { Authorization: basic('pub'), 'Content-Type': 'text/javascript' } });
    // Plain GETs first: a repeated small GET is then answered from memory, which must refuse the same.
    for (let i = 0; i < 3; i++) expect((await fetch(`${s.url}/raw/files/app.js`)).status).toBe(200);
    for (const dest of ['script', 'style', 'worker', 'serviceworker', 'sharedworker', 'object', 'embed']) {
      const r = await fetch(`${s.url}/raw/files/app.js`, { headers: { 'Sec-Fetch-Dest': dest } });
      expect(r.status, dest).toBe(403);
      expect(await r.json()).toHaveProperty('error');
    }
    // A download link, a fetch() and a client without the header (curl, Maven, apt) are served.
    for (const dest of ['document', 'empty', undefined]) {
      const r = await fetch(`${s.url}/raw/files/app.js`, { headers: dest ? { 'Sec-Fetch-Dest': dest } : {} });
      expect(r.status, String(dest)).toBe(200);
      expect(r.headers.get('vary')).toMatch(/Sec-Fetch-Dest/);
    }
    // Another site's page may include a script kept in a raw repository: it runs there, not on Trove's origin.
    for (const site of ['cross-site', 'same-site']) {
      const r = await fetch(`${s.url}/raw/files/app.js`, { headers: { 'Sec-Fetch-Dest': 'script', 'Sec-Fetch-Site': site } });
      expect(r.status, site).toBe(200);
    }
    expect((await fetch(`${s.url}/raw/files/app.js`, { headers: { 'Sec-Fetch-Dest': 'script', 'Sec-Fetch-Site': 'same-origin' } })).status).toBe(403);
  });
});
