import { readdirSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Credential } from '../access/credential.js';
import type { FormatDefinition } from '../modules/format.js';
import { basic, staticResolver } from './resolver.js';
import { startTestServer, type TestServer } from './server.js';

/** The cases a format may skip, each with a reason (Hono's `common.case.test.ts` style). */
export type ConformanceCase = 'head' | 'range' | 'not-modified' | 'identical-reupload' | 'immutable-conflict';

/**
 * What every format must do, run against each format's own definition
 * (like Hono's router `common.case.test.ts`): the SPEC's access rules on format routes,
 * the upload limit, path traversal, the mirror lock, conditional and partial reads,
 * identical re-uploads and immutable conflicts. A format supplies one valid upload, a
 * conflicting one, and the path where its result can be read back.
 */
export interface FormatCase {
  format: FormatDefinition<any>;
  /** Extra settings for the server (e.g. a short Debian debounce). */
  env?: Record<string, string>;
  /** A request that stores something, relative to `/{format}/{repo}/`. */
  upload: { method: 'PUT' | 'POST'; path: string; body: () => Buffer | Promise<Buffer>; headers?: Record<string, string> };
  /** Path relative to `/{format}/{repo}/` that answers 200 once `upload` landed (and indexes are built). */
  readBack: string;
  /** Waits until the upload is readable (formats with debounced indexes); default: nothing. */
  settle?: (s: TestServer, repo: string) => Promise<void>;
  /** Paths (relative to `/{format}/{repo}/`) a read must refuse with 400. */
  badPaths?: string[];
  /** A body for `upload`'s request that collides with the first upload (same path or identity, other bytes), and the 409's code. */
  conflict?: { body: () => Buffer | Promise<Buffer>; code: 'release_immutable' | 'asset_exists' };
  /** Cases this format does not meet by design, each with the reason. */
  skip?: { cases: ConformanceCase[]; reason: string }[];
}

const REPOS = { open: 'conf-open', priv: 'conf-private', locked: 'conf-locked', other: 'conf-other' };

export function describeFormatConformance(c: FormatCase): void {
  const name = c.format.name;
  describe(`format conformance: ${name}`, () => {
    let s: TestServer;
    const url = (repo: string, path = '') => `${s.url}/${name}/${repo}/${path}`;
    const send = async (repo: string, password?: string, body?: Buffer) =>
      fetch(url(repo, c.upload.path), {
        method: c.upload.method,
        body: body ?? (await c.upload.body()),
        headers: { ...(c.upload.headers ?? {}), ...(password ? { Authorization: basic(password) } : {}) },
      });

    beforeAll(async () => {
      s = await startTestServer({
        modules: [c.format],
        env: c.env ?? {},
        setup: async (ctx) => {
          const reader = ctx.users.create({ username: 'reader' });
          const stranger = ctx.users.create({ username: 'stranger' });
          ctx.users.create({ username: 'writer' });
          const open = await ctx.repos.create({ name: REPOS.open, format: name, anonymous_read: true });
          const priv = await ctx.repos.create({ name: REPOS.priv, format: name });
          await ctx.repos.create({ name: REPOS.locked, format: name });
          await ctx.repos.create({ name: REPOS.other, format: name });
          ctx.repos.setLock(REPOS.locked, 'mirror:nexus');
          ctx.permissions.set(priv, 'reader', 'read');
          ctx.permissions.set(open, 'writer', 'read');
          const ci = (repo: string): Credential => ({ type: 'publish', grant: { sessionId: 'ci-' + repo, repo, proof: 'oidc', user: null, actor: 'ci:conformance' } });
          const resolver = staticResolver({
            'ci-open': ci(REPOS.open),
            'ci-private': ci(REPOS.priv),
            'ci-locked': ci(REPOS.locked),
            // A device session whose user holds only read on the repository.
            'device-open': () => ({ type: 'publish', grant: { sessionId: 'dev', repo: REPOS.open, proof: 'device', user: ctx.users.byName('writer')!, actor: 'writer' } }),
            reader: { type: 'user', via: 'password', user: reader },
            stranger: { type: 'user', via: 'password', user: stranger },
          });
          return { credentials: { resolver } };
        },
      });
    });
    afterAll(() => s?.close());

    /** A case the format may skip; the skip is reported with its reason. */
    const optional = (id: ConformanceCase, title: string, fn: () => Promise<void>) => {
      const skip = c.skip?.find((x) => x.cases.includes(id));
      if (skip) it.skip(`${title} (skipped: ${skip.reason})`, fn);
      else it(title, fn);
    };
    const codeOf = async (r: Response) => ((await r.json()) as { code?: string }).code;

    it('stores an upload made with a publish session and serves it back', async () => {
      const r = await send(REPOS.open, 'ci-open');
      expect([200, 201]).toContain(r.status);
      const r2 = await send(REPOS.priv, 'ci-private');
      expect([200, 201]).toContain(r2.status);
      await c.settle?.(s, REPOS.open);
      await c.settle?.(s, REPOS.priv);
      expect((await fetch(url(REPOS.open, c.readBack))).status).toBe(200);
    });

    it('lets anyone read a repository with anonymous_read on', async () => {
      const r = await fetch(url(REPOS.open, c.readBack), { method: 'HEAD' });
      expect(r.status).toBe(200);
    });

    it('challenges an anonymous read of a private repository with 401 and a Basic realm', async () => {
      const r = await fetch(url(REPOS.priv, c.readBack));
      expect(r.status).toBe(401);
      expect(r.headers.get('www-authenticate')).toMatch(/^Basic realm=/);
      expect(await r.json()).toHaveProperty('error');
    });

    it('answers an anonymous caller 401 for an unknown repository, so names do not leak', async () => {
      const r = await fetch(url('no-such-repo', c.readBack));
      expect(r.status).toBe(401);
      expect(r.headers.get('www-authenticate')).toMatch(/^Basic/);
    });

    it('answers a method the format has no route for with 405 and the methods it has', async () => {
      const r = await fetch(url(REPOS.open, c.readBack), { method: 'PATCH', headers: { Authorization: basic('reader') } });
      expect(r.status).toBe(405);
      const allow = (r.headers.get('allow') ?? '').split(/,\s*/);
      expect(allow).toEqual(expect.arrayContaining(['GET', 'HEAD']));
      expect(await r.json()).toMatchObject({ code: 'method_not_allowed' });
      const upload = await fetch(url(REPOS.open, c.upload.path), { method: 'PATCH', headers: { Authorization: basic('reader') } });
      expect(upload.headers.get('allow')).toContain(c.upload.method);
      const options = await fetch(url(REPOS.open, c.upload.path), { method: 'OPTIONS' });
      expect(options.status).toBe(204);
      expect(options.headers.get('allow')).toContain(c.upload.method);
    });

    it('answers a signed-in caller 404 for an unknown repository', async () => {
      const r = await fetch(url('no-such-repo', c.readBack), { headers: { Authorization: basic('reader') } });
      expect(r.status).toBe(404);
    });

    it('serves a private repository to a user with read permission and refuses others with 403', async () => {
      expect((await fetch(url(REPOS.priv, c.readBack), { headers: { Authorization: basic('reader') } })).status).toBe(200);
      const r = await fetch(url(REPOS.priv, c.readBack), { headers: { Authorization: basic('stranger') } });
      expect(r.status).toBe(403);
    });

    it('refuses a write with a password: 401 pointing at the publishing page', async () => {
      const r = await send(REPOS.priv, 'reader');
      expect(r.status).toBe(401);
      const body = (await r.json()) as { error: string; code: string };
      // The server's own origin when base_url is empty, as in the usage snippets.
      expect(body.error).toMatch(/^publishing needs a publish session: https?:\/\/[^/]+\/#\/publishing$/);
      expect(body.code).toBe('needs_publish_session');
    });

    it('refuses an anonymous write with 401', async () => {
      expect((await send(REPOS.open)).status).toBe(401);
    });

    it('refuses a publish session of another repository like no session: 401 pointing at the publishing page', async () => {
      const r = await send(REPOS.other, 'ci-open');
      expect(r.status).toBe(401);
      expect(r.headers.get('www-authenticate')).toMatch(/^Basic realm=/);
      const body = (await r.json()) as { error: string; code: string };
      expect(body.error).toMatch(/^publishing needs a publish session: https?:\/\/[^/]+\/#\/publishing$/);
      expect(body.code).toBe('wrong_repository');
    });

    it('refuses a device session whose user lacks write with 403', async () => {
      expect((await send(REPOS.open, 'device-open')).status).toBe(403);
    });

    it('refuses writes to a repository a mirror owns with 409', async () => {
      const r = await send(REPOS.locked, 'ci-locked');
      expect(r.status).toBe(409);
      expect(await codeOf(r)).toBe('repo_mirrored');
    });

    it('answers 413 over max_upload_bytes and leaves nothing in the spool', async () => {
      const body = await c.upload.body();
      await s.ctx.settings.patch({ max_upload_bytes: Math.max(1, body.length - 1) });
      try {
        const r = await send(REPOS.priv, 'ci-private', body);
        expect(r.status).toBe(413);
        expect(await r.json()).toMatchObject({ error: expect.any(String), code: 'payload_too_large' });
        expect(readdirSync(join(s.dataDir, 'spool'))).toEqual([]);
      } finally {
        await s.ctx.settings.patch({ max_upload_bytes: null });
      }
    });

    optional('head', 'answers HEAD like GET without a body', async () => {
      const get = await fetch(url(REPOS.open, c.readBack));
      const bytes = Buffer.from(await get.arrayBuffer());
      const head = await fetch(url(REPOS.open, c.readBack), { method: 'HEAD' });
      expect(head.status).toBe(200);
      expect(head.headers.get('content-length')).toBe(String(bytes.length));
      expect(head.headers.get('etag')).toBe(get.headers.get('etag'));
      expect((await head.arrayBuffer()).byteLength).toBe(0);
    });

    optional('range', 'answers a byte range with 206 and an unsatisfiable one with 416 range_not_satisfiable', async () => {
      const whole = Buffer.from(await (await fetch(url(REPOS.open, c.readBack))).arrayBuffer());
      const part = await fetch(url(REPOS.open, c.readBack), { headers: { Range: 'bytes=1-3' } });
      expect(part.status).toBe(206);
      expect(part.headers.get('content-range')).toBe(`bytes 1-3/${whole.length}`);
      expect(Buffer.from(await part.arrayBuffer())).toEqual(whole.subarray(1, 4));
      const beyond = await fetch(url(REPOS.open, c.readBack), { headers: { Range: `bytes=${whole.length + 10}-` } });
      expect(beyond.status).toBe(416);
      expect(beyond.headers.get('content-range')).toBe(`bytes */${whole.length}`);
      expect(await codeOf(beyond)).toBe('range_not_satisfiable');
    });

    optional('not-modified', 'answers 304 to a matching If-None-Match', async () => {
      const first = await fetch(url(REPOS.open, c.readBack));
      await first.arrayBuffer();
      const etag = first.headers.get('etag');
      expect(etag).toBeTruthy();
      const again = await fetch(url(REPOS.open, c.readBack), { headers: { 'If-None-Match': etag! } });
      expect(again.status).toBe(304);
      expect((await again.arrayBuffer()).byteLength).toBe(0);
    });

    optional('identical-reupload', 'answers an identical re-upload with 200 and keeps the file', async () => {
      const before = Buffer.from(await (await fetch(url(REPOS.open, c.readBack))).arrayBuffer());
      const r = await send(REPOS.open, 'ci-open');
      expect(r.status).toBe(200);
      await c.settle?.(s, REPOS.open);
      expect(Buffer.from(await (await fetch(url(REPOS.open, c.readBack))).arrayBuffer())).toEqual(before);
    });

    optional('immutable-conflict', 'refuses other bytes for what is stored with 409 and its code, keeping the first', async () => {
      if (!c.conflict) throw new Error(`format ${name}: declare a conflicting upload or skip 'immutable-conflict' with a reason`);
      const before = Buffer.from(await (await fetch(url(REPOS.open, c.readBack))).arrayBuffer());
      const r = await send(REPOS.open, 'ci-open', await c.conflict.body());
      expect(r.status).toBe(409);
      expect(await codeOf(r)).toBe(c.conflict.code);
      expect(readdirSync(join(s.dataDir, 'spool'))).toEqual([]);
      expect(Buffer.from(await (await fetch(url(REPOS.open, c.readBack))).arrayBuffer())).toEqual(before);
    });

    it('refuses traversal and malformed paths with 400', async () => {
      const bad = ['..%2f..%2fetc%2fpasswd', '%2e%2e/%2e%2e/etc/passwd', 'a/../../b', 'a%00b', 'a//b', ...(c.badPaths ?? [])];
      for (const p of bad) {
        // node's fetch normalises literal dot segments, so send the raw request line.
        expect(await rawGet(s.port, `/${name}/${REPOS.open}/${p}`), p).toBe(400);
      }
    });

    it('reads through an absolute-form request target as through a path (RFC 9112 3.2.2)', async () => {
      expect(await rawGet(s.port, `http://127.0.0.1:${s.port}/${name}/${REPOS.open}/${c.readBack}`)).toBe(200);
      expect(await rawGet(s.port, `http://127.0.0.1:${s.port}/${name}/${REPOS.open}/a/../../b`)).toBe(400);
    });
  });
}

/** A GET whose request line is sent exactly as given (no URL normalisation). */
function rawGet(port: number, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'GET' }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}
