import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import type { Hono } from 'hono';
import type { AddressInfo } from 'node:net';
import type { CoreContext } from '../context.js';
import { createCore, type CreateCoreOptions } from '../create-core.js';
import { buildHttpApp, type HttpAppParts } from '../http/app.js';
import type { TroveEnv } from '../http/env.js';
import { AnswerCache } from '../http/answer-cache.js';
import { listen } from '../http/listen.js';
import { createStorage } from '../storage/index.js';

export interface TestServer {
  url: string;
  port: number;
  ctx: CoreContext;
  app: Hono<TroveEnv>;
  dataDir: string;
  close(): Promise<void>;
}

/**
 * A real listening server on 127.0.0.1 with a fresh data directory and SQLite file,
 * for tests of formats and subsystems through HTTP. Pass `setup` to install a
 * credential resolver or create repositories before the app is built.
 */
export async function startTestServer(
  opts: Partial<Omit<CreateCoreOptions, 'dataDir' | 'masterKey'>> & {
    formats: CreateCoreOptions['formats'];
    dataDir?: string;
    /** Pass the same key with the same `dataDir` to restart a server with its stored secrets. */
    masterKey?: Buffer;
    setup?: (ctx: CoreContext) => void | Promise<void | HttpAppParts>;
  },
): Promise<TestServer> {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'trove-test-'));
  const ctx = await createCore({
    log: pino({ level: process.env.TROVE_TEST_LOG ?? 'silent' }),
    env: {},
    followLogLevel: !!process.env.TROVE_TEST_LOG,
    ...opts,
    dataDir,
    masterKey: opts.masterKey ?? randomBytes(32),
  });
  const storage = createStorage(ctx);
  const parts = (await opts.setup?.(ctx)) ?? {};
  for (const f of ctx.formats.all()) await f.start?.(ctx);
  storage.start();
  const app = buildHttpApp(ctx, { ...parts, api: [...(parts.api ?? []), ...storage.apiRoutes] });
  const server = await listen(app, { host: '127.0.0.1', port: 0, answers: new AnswerCache(ctx) });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    ctx,
    app,
    dataDir,
    async close() {
      storage.stop();
      for (const f of ctx.formats.all()) await f.stop?.(ctx);
      // Tests end abruptly: drop keep-alive sockets now instead of waiting for clients to let go.
      const closed = new Promise<void>((r) => server.close(() => r()));
      server.closeAllConnections();
      await closed;
      await ctx.close();
      if (!opts.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
