import { expect } from 'vitest';
import { Hono } from 'hono';
import { z } from 'zod';
import { defineFormat, notFound, serveAsset, type CoreContext, type Credential, type FormatContext, type TroveEnv } from '@trove/core';
import { startTestServer, type TestServer } from '@trove/core/testing/server';
import { basic, staticResolver } from '@trove/core/testing/resolver';
import { mirrorModule, type Mirror, type MirrorOptions } from '../src/index.js';
import { NexusDouble } from '../src/testing/nexus-double.js';

export { basic };

/** Serves a repository's assets as they are: the read side of the stand-in formats below. */
function readRoutes(ctx: FormatContext): Hono<TroveEnv> {
  const app = new Hono<TroveEnv>();
  app.get('/:repo/*', async (c) => {
    const { repo, path } = ctx.open(c, 'read');
    const asset = ctx.assets.get(repo, path);
    if (!asset) throw notFound(`${path} not found`);
    return serveAsset(c, ctx.blobs, asset, {});
  });
  return app;
}

/**
 * Stand-in `raw` and `maven` formats for the package's own tests (the mirror may not depend on
 * format packages; tests with the real formats and real clients live in apps/server/test/mirror*).
 * Reads serve the asset; writes go through the access rules, so the mirror's fence shows.
 */
const storedFormat = (name: string, configSchema: z.ZodType<Record<string, unknown>>, defaultConfig: Record<string, unknown>) =>
  defineFormat({
    name,
    title: `${name} (test)`,
    defaultConfig,
    configSchema,
    create(ctx) {
      const app = readRoutes(ctx);
      app.put('/:repo/*', async (c) => {
        const { repo, path } = ctx.open(c, 'write');
        const file = await ctx.receive(c, { maxBytes: 1 << 20 });
        const { status } = await ctx.assets.commit({ repo, path, file, contentType: 'application/octet-stream', uploader: 'ci', onExisting: 'replace' });
        return c.json({ path }, status === 'created' ? 201 : 200);
      });
      return { routes: app };
    },
  });
export const testRawFormat = storedFormat('raw', z.object({}).strict(), {});
/** With the real format's config rule: a maven2 source's version policy must pass it. */
export const testMavenFormat = storedFormat('maven', z.object({ version_policy: z.enum(['release', 'snapshot', 'mixed']) }).strict(), { version_policy: 'mixed' });

/** A slow store for the stand-in Debian format: each removal waits this long. */
export const debianDouble = { removalDelayMs: 0 };

/**
 * A stand-in `debian` format with what the mirror relies on: config rules (an apt source's
 * distribution must pass them) and an import that, like the real one, files a package under a
 * path of its own choosing, so equal bytes at two source paths become one file (`pool/<sha256>.deb`).
 */
export const testDebianFormat = defineFormat({
  name: 'debian',
  title: 'Debian (test)',
  defaultConfig: { distribution: 'stable', architectures: ['amd64'] },
  configSchema: z.object({ distribution: z.string().regex(/^[a-z0-9][a-z0-9.+-]{0,63}$/), architectures: z.array(z.string()).min(1) }).strict(),
  create: (ctx) => ({
    routes: readRoutes(ctx),
    async importAsset(input) {
      const { repo, file, contentType, uploader, onImported } = input;
      const path = `pool/${file.hashes.sha256}.deb`;
      const inCommit = onImported && (() => onImported(path));
      const { status } = await ctx.assets.commit({ repo, path, file, contentType, uploader, onExisting: 'conflict', importing: true, ...(inCommit ? { inCommit } : {}) });
      return { status, path };
    },
    async removeImported({ repo, path }) {
      if (debianDouble.removalDelayMs) await new Promise((r) => setTimeout(r, debianDouble.removalDelayMs));
      return ctx.assets.delete(repo, path);
    },
  }),
});

export interface Rig {
  nexus: NexusDouble;
  /** Trove's data directory (its database is `trove.db` there). */
  dataDir: string;
  trove: TestServer;
  mirror: Mirror;
  api(method: string, path: string, body?: unknown, password?: string): Promise<{ status: number; body: any }>;
  /** Restarts Trove on the same data directory and master key (a kill and a restart). */
  restart(): Promise<void>;
  close(): Promise<void>;
}

export async function startRig(opts: { mirror?: MirrorOptions; nexus?: NexusDouble } = {}): Promise<Rig> {
  const nexus = opts.nexus ?? (await NexusDouble.start());
  const masterKey = Buffer.alloc(32, 7);
  const { mkdtempSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const dataDir = mkdtempSync(join(tmpdir(), 'trove-mirror-'));
  const boot = async () => {
    const trove = await startTestServer({
      modules: [mirrorModule({ client: { backoffMs: 5, timeoutMs: 2_000 }, ...opts.mirror }), testRawFormat, testMavenFormat, testDebianFormat],
      dataDir,
      masterKey,
      setup: (ctx: CoreContext) => {
        const admin = ctx.users.byName('admin') ?? ctx.users.create({ username: 'admin', isAdmin: true });
        const alice = ctx.users.byName('alice') ?? ctx.users.create({ username: 'alice' });
        const publish = (repo: string): Credential => ({ type: 'publish', grant: { sessionId: 's-' + repo, repo, proof: 'oidc', user: null, actor: 'ci' } });
        const resolver = staticResolver({
          admin: { type: 'user', via: 'session', user: admin },
          alice: { type: 'user', via: 'password', user: alice },
          'pub-files': publish('files'),
        });
        return { credentials: { resolver } };
      },
    });
    return { trove, mirror: trove.instance<{ mirror: Mirror }>('mirror').mirror };
  };
  let current = await boot();
  const rig: Rig = {
    nexus,
    dataDir,
    get trove() {
      return current.trove;
    },
    get mirror() {
      return current.mirror;
    },
    async api(method, path, body, password = 'admin') {
      const res = await fetch(`${current.trove.url}/api${path}`, {
        method,
        headers: { Authorization: basic(password), ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}) },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : null };
    },
    async restart() {
      await current.trove.close();
      current = await boot();
    },
    async close() {
      await current.trove.close();
      await nexus.close();
      (await import('node:fs')).rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return rig;
}

/** Polls a sync until it has ended. */
export async function waitSync(rig: Rig, id: string, timeoutMs = 20_000): Promise<any> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const { body } = await rig.api('GET', `/mirror/syncs/${id}`);
    if (body.state !== 'running') return body;
    if (Date.now() > until) throw new Error(`sync ${id} still running: ${JSON.stringify(body)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function eventually<T>(fn: () => Promise<T | undefined | false>, timeoutMs = 10_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 30));
  }
}

/** Maps a fresh raw source repository `files` holding `files` to a new target `files`; the source's id. */
export async function mapFiles(rig: Rig, files: Record<string, string | Buffer>): Promise<string> {
  rig.nexus.addRepo('files', 'raw');
  for (const [p, c] of Object.entries(files)) rig.nexus.put('files', p, c, { uploader: 'jane', uploaderIp: '10.9.8.7' });
  const { body: s } = await rig.api('POST', '/mirror/sources', { name: 'nexus', base_url: rig.nexus.url, username: 'admin', password: 'admin123' });
  expect((await rig.api('PUT', `/mirror/sources/${s.id}/repos`, [{ source_repo: 'files', target: 'files', create: true }])).status).toBe(200);
  return s.id as string;
}

/** A file of the target `files`, read as admin. */
export async function readFile(rig: Rig, path: string): Promise<{ status: number; text: string }> {
  const res = await fetch(`${rig.trove.url}/raw/files/${path}`, { headers: { Authorization: basic('admin') } });
  return { status: res.status, text: await res.text() };
}

/** Rows of runs' listings left in the database: none once a repository's import has ended, however it ended. */
export const listingRows = (rig: Rig) => (rig.trove.ctx.db.$client.prepare('SELECT count(*) AS n FROM mirror_listing').get() as { n: number }).n;

/** Starts a sync of source `id` (202) and waits for its end. */
export async function syncOnce(rig: Rig, id: string) {
  const started = await rig.api('POST', `/mirror/sources/${id}/sync`);
  expect(started.status).toBe(202);
  return waitSync(rig, started.body.id);
}
