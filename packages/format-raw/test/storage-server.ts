import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { CoreContext, Credential } from '@trove/core';
import { staticResolver } from '@trove/core/testing/resolver';
import { startTestServer, type TestServer } from '@trove/core/testing/server';
import type { TestS3Server } from '@trove/blobstore/testing/s3-server';
import { rawFormat } from '../src/index.js';

/**
 * A test server for storage tests: raw repository `files` (anonymous read, overwrites allowed),
 * Basic password `pub` publishes to it, `admin` is an administrator. Pass the same `dataDir` and
 * `masterKey` to start it again on the same database and blobs (a restart).
 */
export async function startStorageServer(opts: { dataDir?: string; masterKey?: Buffer; env?: Record<string, string> } = {}): Promise<TestServer> {
  return startTestServer({
    modules: [rawFormat],
    dataDir: opts.dataDir,
    masterKey: opts.masterKey,
    env: opts.env,
    setup: async (ctx: CoreContext) => {
      if (!ctx.repos.byName('files')) await ctx.repos.create({ name: 'files', format: 'raw', anonymous_read: true, overwrite: 'allow' });
      const user = ctx.users.byName('admin') ?? ctx.users.create({ username: 'admin', isAdmin: true });
      const admin: Credential = { type: 'user', via: 'session', user };
      const resolver = staticResolver({
        pub: { type: 'publish', grant: { sessionId: 's-files', repo: 'files', proof: 'oidc', user: null, actor: 'ci' } },
        admin: () => admin,
      });
      return { credentials: { resolver } };
    },
  });
}

const basic = (pw: string) => 'Basic ' + Buffer.from(`x:${pw}`).toString('base64');

export function client(url: () => string) {
  return {
    async put(path: string, body: Buffer) {
      const r = await fetch(`${url()}/raw/files/${path}`, { method: 'PUT', headers: { Authorization: basic('pub') }, body });
      if (r.status !== 201 && r.status !== 200) throw new Error(`PUT ${path}: ${r.status} ${await r.text()}`);
    },
    get(path: string, init: RequestInit = {}) {
      return fetch(`${url()}/raw/files/${path}`, init);
    },
    async api(method: string, path: string, body?: unknown) {
      const r = await fetch(`${url()}/api${path}`, {
        method,
        headers: { Authorization: basic('admin'), 'Content-Type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await r.text();
      return { status: r.status, body: text ? JSON.parse(text) : null };
    },
  };
}

export const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** Settings that put the blobs on the test S3 server under `prefix`. */
export const s3Settings = (s3: TestS3Server, prefix: string) => ({
  storage: 's3',
  's3.endpoint': s3.endpoint,
  's3.region': s3.region,
  's3.bucket': s3.bucket,
  's3.access_key_id': s3.accessKeyId,
  's3.secret_access_key': s3.secretAccessKey,
  's3.path_style': true,
  's3.prefix': prefix,
});

/** `n` files: most small (served from the memory cache once read), every 20th over the cache's 64 KiB limit. */
export function makeFiles(n: number, tag: string): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  for (let i = 0; i < n; i++) files.set(`${tag}/f${i}.bin`, randomBytes(i % 20 === 0 ? 80_000 + i : 200 + (i % 800)));
  return files;
}

export async function eachLimited<T>(items: T[], limit: number, fn: (item: T) => Promise<void>) {
  let next = 0;
  await Promise.all(Array.from({ length: limit }, async () => {
    while (next < items.length) await fn(items[next++]!);
  }));
}

export async function until<T>(fn: () => Promise<T>, ok: (v: T) => boolean, what: string, ms = 120_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (ok(v)) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Every file under `dir` on disk (an fs blob root, or the s3rver directory), recursively. */
export function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}
