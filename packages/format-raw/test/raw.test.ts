import { createHash, randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import type { Credential, CoreContext } from '@trove/core';
import { startTestServer, type TestServer } from '@trove/core/testing/server';
import { staticResolver, basic } from '@trove/core/testing/resolver';
import { rawFormat } from '../src/index.js';

let s: TestServer;
afterEach(() => s?.close());

/** Writer: a CI publish session for `files`; reader: alice with read on `private`. */
async function rawServer(env: Record<string, string> = {}) {
  s = await startTestServer({
    modules: [rawFormat],
    env,
    setup: async (ctx: CoreContext) => {
      const alice = ctx.users.create({ username: 'alice' });
      const bob = ctx.users.create({ username: 'bob' });
      await ctx.repos.create({ name: 'files', format: 'raw', anonymous_read: true });
      await ctx.repos.create({ name: 'open', format: 'raw', anonymous_read: true, overwrite: 'allow' });
      const priv = await ctx.repos.create({ name: 'private', format: 'raw' });
      ctx.permissions.set(priv, 'alice', 'read');
      const publish = (repo: string): Credential => ({ type: 'publish', grant: { sessionId: 's-' + repo, repo, proof: 'oidc', user: null, actor: 'ci:acme/widgets' } });
      const resolver = staticResolver({
        'pub-files': publish('files'),
        'pub-open': publish('open'),
        'pub-private': publish('private'),
        alice: { type: 'user', via: 'password', user: alice },
        bob: { type: 'user', via: 'password', user: bob },
      });
      return { credentials: { resolver } };
    },
  });
  return s;
}

const put = (path: string, body: Buffer | string, password = 'pub-files', headers: Record<string, string> = {}) =>
  fetch(`${s.url}/raw/${path}`, { method: 'PUT', body, headers: { Authorization: basic(password), ...headers } });

describe('raw format: uploads', () => {
  it('answers 201 for a new path, 200 for identical bytes and 409 for different bytes', async () => {
    await rawServer();
    let r = await put('files/a/b/c.txt', 'hello');
    expect(r.status).toBe(201);
    const body = await r.json();
    expect(body).toEqual({ path: 'a/b/c.txt', size: 5, sha256: createHash('sha256').update('hello').digest('hex') });
    expect((await put('files/a/b/c.txt', 'hello')).status).toBe(200);
    r = await put('files/a/b/c.txt', 'changed');
    expect(r.status).toBe(409);
    expect((await r.json()).error).toMatch(/does not allow overwrites/);
    expect(await (await fetch(`${s.url}/raw/files/a/b/c.txt`)).text()).toBe('hello');
  });

  it('replaces with 200 when the repository allows overwrites', async () => {
    await rawServer();
    expect((await put('open/x.bin', 'one', 'pub-open')).status).toBe(201);
    expect((await put('open/x.bin', 'two', 'pub-open')).status).toBe(200);
    expect(await (await fetch(`${s.url}/raw/open/x.bin`)).text()).toBe('two');
  });

  it('answers 413 over max_upload_bytes and keeps nothing', async () => {
    await rawServer({ TR_MAX_UPLOAD_BYTES: '1000' });
    const r = await put('files/big.bin', randomBytes(5000));
    expect(r.status).toBe(413);
    expect((await fetch(`${s.url}/raw/files/big.bin`)).status).toBe(404);
    expect(readdirSync(join(s.dataDir, 'spool'))).toEqual([]);
  });

  it('answers 413 for a chunked body that crosses the limit mid-stream', async () => {
    await rawServer({ TR_MAX_UPLOAD_BYTES: '100000' });
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(`${s.url}/raw/files/chunked.bin`, { method: 'PUT', headers: { Authorization: basic('pub-files'), 'Transfer-Encoding': 'chunked' } }, (res) => {
        res.resume();
        resolve(res.statusCode!);
      });
      req.on('error', reject);
      let sent = 0;
      const pump = () => {
        while (sent < 10_000_000) {
          sent += 65536;
          if (!req.write(Buffer.alloc(65536))) return req.once('drain', pump);
        }
        req.end();
      };
      pump();
    });
    expect(status).toBe(413);
    expect(readdirSync(join(s.dataDir, 'spool'))).toEqual([]);
  });

  it('refuses traversal, encoded traversal, NUL, backslashes and empty segments with 400', async () => {
    await rawServer();
    // node:http sends the path exactly as written (fetch would normalise dot segments first)
    const rawPut = (p: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port: s.port, method: 'PUT', path: `/raw/${p}`, headers: { Authorization: basic('pub-files') } }, (res) => {
          let body = '';
          res.on('data', (d) => (body += d));
          res.on('end', () => resolve({ status: res.statusCode!, body }));
        });
        req.on('error', reject);
        req.end('x');
      });
    for (const p of ['files/a/%2e%2e/b', 'files/a/../b', 'files/a/..%2fb', 'files/a%00b', 'files/a%5cb', 'files/a\\b', 'files/a//b', 'files/./a', 'files/%zz']) {
      const r = await rawPut(p);
      expect(r.status, p).toBe(400);
      expect(JSON.parse(r.body).error).toBeTruthy();
    }
    expect((await fetch(`${s.url}/api/repos/files/assets`).then((r) => r.json())).items).toEqual([]);
  });

  it('writes only with a publish session for that repository', async () => {
    await rawServer();
    let r = await fetch(`${s.url}/raw/files/x`, { method: 'PUT', body: 'x' });
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toMatch(/^Basic realm=/);
    r = await put('files/x', 'x', 'alice');
    expect(r.status).toBe(401);
    expect((await r.json()).error).toMatch(/publishing needs a publish session: .*\/#\/publishing/);
    r = await put('open/x', 'x', 'pub-files');
    expect(r.status).toBe(401);
    expect((await r.json()).error).toMatch(/^publishing needs a publish session: http:\/\/127\.0\.0\.1:\d+\/#\/publishing$/);
  });

  it('records the uploader and a content type from the extension', async () => {
    await rawServer();
    await put('files/docs/readme.json', Buffer.from('{}'));
    const list = await (await fetch(`${s.url}/api/repos/files/assets`)).json();
    expect(list.items[0]).toMatchObject({ path: 'docs/readme.json', uploader: 'ci:acme/widgets', content_type: 'application/json; charset=utf-8' });
  });
  it('keeps only the type and charset a client declares: a header that smuggles a second type never becomes a page', async () => {
    await rawServer();
    const html = '<html><body><a href="https://evil.example">sign in</a></body></html>';
    for (const [i, sent] of ['application/json; x=1, text/html', 'text/plain; charset=utf-8, text/html', 'application/json; charset="utf-8"; x=",text/html"'].entries()) {
      expect((await put(`files/smuggled${i}.txt`, html, 'pub-files', { 'Content-Type': sent })).status).toBe(201);
      const r = await fetch(`${s.url}/raw/files/smuggled${i}.txt`);
      expect(r.headers.get('content-type'), sent).not.toMatch(/html/);
      expect(r.headers.get('content-type'), sent).not.toMatch(/,/);
    }
    expect((await fetch(`${s.url}/raw/files/smuggled1.txt`)).headers.get('content-type')).toBe('text/plain'); // 'utf-8, text/html' is no charset
    expect((await fetch(`${s.url}/raw/files/smuggled2.txt`)).headers.get('content-type')).toBe('application/json; charset=utf-8');
  });

  it('refuses a path ending in "/" (400 on PUT, 404 on GET): dir/ is not the file dir', async () => {
    await rawServer();
    const r = await put('files/dir/', 'x');
    expect(r.status).toBe(400);
    expect((await r.json()).error).toMatch(/cannot end with/);
    expect((await put('files/dir', 'x')).status).toBe(201);
    expect((await fetch(`${s.url}/raw/files/dir/`)).status).toBe(404);
    expect((await fetch(`${s.url}/raw/files/dir`)).status).toBe(200);
  });

  it('refuses new names with C1 controls, line separators or bidirectional overrides, and keeps joiners', async () => {
    await rawServer();
    for (const p of ['files/a%C2%85b', 'files/a%E2%80%AEgnp.exe', 'files/a%E2%81%A6b', 'files/%EF%BB%BFa', 'files/a%E2%80%A8b']) {
      const r = await put(p, 'x');
      expect(r.status, p).toBe(400);
    }
    // Reads keep the older rule: a name stored before is looked up (404 here), not refused.
    expect((await fetch(`${s.url}/raw/files/a%E2%80%AEgnp.exe`)).status).toBe(404);
    // Letters, symbols, and the zero-width joiners Persian, Devanagari and emoji sequences need.
    for (const p of ['caf%C3%A9-%E2%9C%93.txt', encodeURIComponent('می\u200cخواهم.pdf'), encodeURIComponent('क्\u200dष.txt'), encodeURIComponent('👨\u200d👩\u200d👧.png')]) {
      expect((await put(`files/${p}`, 'x')).status, p).toBe(201);
    }
  });
});

describe('raw format: downloads', () => {
  it('serves bytes with length, type, ETag and Last-Modified; HEAD without body', async () => {
    await rawServer();
    const b = randomBytes(10_000);
    await put('files/f.tar.gz', b);
    const r = await fetch(`${s.url}/raw/files/f.tar.gz`);
    expect(r.status).toBe(200);
    expect(Buffer.from(await r.arrayBuffer()).equals(b)).toBe(true);
    expect(r.headers.get('content-length')).toBe('10000');
    expect(r.headers.get('content-type')).toBe('application/gzip');
    expect(r.headers.get('etag')).toBe(`"${createHash('sha256').update(b).digest('hex')}"`);
    expect(r.headers.get('last-modified')).toBeTruthy();
    const h = await fetch(`${s.url}/raw/files/f.tar.gz`, { method: 'HEAD' });
    expect(h.status).toBe(200);
    expect(h.headers.get('content-length')).toBe('10000');
    expect((await h.arrayBuffer()).byteLength).toBe(0);
  });

  it('answers byte ranges and 416 outside the file', async () => {
    await rawServer();
    await put('files/r.txt', '0123456789');
    let r = await fetch(`${s.url}/raw/files/r.txt`, { headers: { Range: 'bytes=2-4' } });
    expect(r.status).toBe(206);
    expect(await r.text()).toBe('234');
    expect(r.headers.get('content-range')).toBe('bytes 2-4/10');
    r = await fetch(`${s.url}/raw/files/r.txt`, { headers: { Range: 'bytes=-3' } });
    expect(await r.text()).toBe('789');
    r = await fetch(`${s.url}/raw/files/r.txt`, { headers: { Range: 'bytes=20-' } });
    expect(r.status).toBe(416);
    expect(r.headers.get('content-range')).toBe('bytes */10');
  });

  it('answers conditional requests with 304', async () => {
    await rawServer();
    await put('files/c.txt', 'cache me');
    const first = await fetch(`${s.url}/raw/files/c.txt`);
    const etag = first.headers.get('etag')!;
    expect((await fetch(`${s.url}/raw/files/c.txt`, { headers: { 'If-None-Match': etag } })).status).toBe(304);
    expect((await fetch(`${s.url}/raw/files/c.txt`, { headers: { 'If-Modified-Since': first.headers.get('last-modified')! } })).status).toBe(304);
    expect((await fetch(`${s.url}/raw/files/c.txt`, { headers: { 'If-None-Match': '"other"' } })).status).toBe(200);
    // Replaced within the same second (Last-Modified has whole seconds): a client with only the date (wget -N, curl -z) must still see it.
    expect((await put('open/c.txt', 'cache me', 'pub-open')).status).toBe(201);
    const v1 = await fetch(`${s.url}/raw/open/c.txt`);
    expect((await put('open/c.txt', 'cache me again', 'pub-open')).status).toBe(200);
    const again = await fetch(`${s.url}/raw/open/c.txt`, { headers: { 'If-Modified-Since': v1.headers.get('last-modified')! } });
    expect(again.status).toBe(200);
    expect(await again.text()).toBe('cache me again');
    expect(Date.parse(again.headers.get('last-modified')!)).toBeGreaterThan(Date.parse(v1.headers.get('last-modified')!));
  });

  it('applies the read rules: anonymous 401 with challenge, 403 without permission, 401 for a publish session of another repository, 404 unknown', async () => {
    await rawServer();
    await put('private/s.txt', 'secret', 'pub-private');
    let r = await fetch(`${s.url}/raw/private/s.txt`);
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toMatch(/Basic/);
    expect((await fetch(`${s.url}/raw/nope/s.txt`)).status).toBe(401);
    expect((await fetch(`${s.url}/raw/private/s.txt`, { headers: { Authorization: basic('bob') } })).status).toBe(403);
    expect((await fetch(`${s.url}/raw/nope/s.txt`, { headers: { Authorization: basic('bob') } })).status).toBe(404);
    expect((await fetch(`${s.url}/raw/private/s.txt`, { headers: { Authorization: basic('wrong') } })).status).toBe(401);
    r = await fetch(`${s.url}/raw/private/s.txt`, { headers: { Authorization: basic('alice') } });
    expect(await r.text()).toBe('secret');
    r = await fetch(`${s.url}/raw/private/s.txt`, { headers: { Authorization: basic('pub-private') } });
    expect(r.status).toBe(200);
    expect((await fetch(`${s.url}/raw/files/x`, { headers: { Authorization: basic('pub-private') } })).status).toBe(401);
  });

  it('answers 404 for a missing file', async () => {
    await rawServer();
    const r = await fetch(`${s.url}/raw/files/missing.txt`);
    expect(r.status).toBe(404);
    expect(await r.json()).toEqual({ error: 'missing.txt not found', code: 'not_found' });
  });
});

describe('raw format: usage', () => {
  it('offers curl snippets with the base URL and no secret inline', async () => {
    await rawServer();
    const u = await (await fetch(`${s.url}/api/repos/files/usage`)).json();
    expect(u.snippets.length).toBeGreaterThan(1);
    for (const sn of u.snippets) expect(sn.code).toContain(`${s.url}/raw/files`);
    expect(JSON.stringify(u)).toMatch(/\$TROVE_PUBLISH_TOKEN/);
    expect(u.snippets[0].code).toContain(`npm install -g ${s.url}/downloads/trove-cli.tgz`);
    expect(u.snippets[0].code).toContain('trove upload files ./file.tar.gz path/to/file.tar.gz');
  });
});
