import { Hono } from 'hono';
import { z } from 'zod';
import { defineFormat, notFound, serveAsset, type CoreContext, type Credential, type TroveEnv } from '@trove/core';
import { startTestServer, type TestServer } from '@trove/core/testing/server';
import { basic, staticResolver } from '@trove/core/testing/resolver';
import { mirrorModule, type Mirror, type MirrorOptions } from '../src/index.js';
import { NexusDouble } from '../src/testing/nexus-double.js';

export { basic };

/**
 * A stand-in `raw` format for the package's own tests (the mirror may not depend on format
 * packages; tests with the real formats and real clients live in apps/server/test/mirror*).
 * Reads serve the asset; writes go through the access rules, so the mirror's fence shows.
 */
export const testRawFormat = defineFormat({
  name: 'raw',
  title: 'Raw (test)',
  defaultConfig: {},
  configSchema: z.object({}).strict(),
  create(ctx) {
    const app = new Hono<TroveEnv>();
    app.get('/:repo/*', async (c) => {
      const { repo, path } = ctx.open(c, 'read');
      const asset = ctx.assets.get(repo, path);
      if (!asset) throw notFound(`${path} not found`);
      return serveAsset(c, ctx.blobs, asset, {});
    });
    app.put('/:repo/*', async (c) => {
      const { repo, path } = ctx.open(c, 'write');
      const file = await ctx.receive(c, { maxBytes: 1 << 20 });
      const { status } = await ctx.assets.commit({ repo, path, file, contentType: 'application/octet-stream', uploader: 'ci', onExisting: 'replace' });
      return c.json({ path }, status === 'created' ? 201 : 200);
    });
    return { routes: app };
  },
});

/** A stand-in `debian` format: only its config rules matter here (an apt source's distribution must pass them). */
export const testDebianFormat = defineFormat({
  name: 'debian',
  title: 'Debian (test)',
  defaultConfig: { distribution: 'stable', architectures: ['amd64'] },
  configSchema: z.object({ distribution: z.string().regex(/^[a-z0-9][a-z0-9.+-]{0,63}$/), architectures: z.array(z.string()).min(1) }).strict(),
  create: () => ({ routes: new Hono<TroveEnv>() }),
});

export interface Rig {
  nexus: NexusDouble;
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
      modules: [mirrorModule({ client: { backoffMs: 5, timeoutMs: 2_000 }, ...opts.mirror }), testRawFormat, testDebianFormat],
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
