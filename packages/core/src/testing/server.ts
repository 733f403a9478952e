import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import type { Hono } from 'hono';
import type { AddressInfo } from 'node:net';
import type { CoreContext } from '../context.js';
import type { CreateCoreOptions } from '../create-core.js';
import { buildHttpApp } from '../http/app.js';
import type { TroveEnv } from '../http/env.js';
import { AnswerCache } from '../http/answer-cache.js';
import { listen } from '../http/listen.js';
import { defineModule, type ModuleInstance } from '../modules/contract.js';
import { startModules, type RunningModules } from '../modules/lifecycle.js';

export interface TestServer {
  url: string;
  port: number;
  ctx: CoreContext;
  app: Hono<TroveEnv>;
  dataDir: string;
  running: RunningModules;
  /** The running instance of a module or format, for tests that look inside (Debian's build log). */
  instance<I>(name: string): I;
  close(): Promise<void>;
}

/**
 * A real listening server on 127.0.0.1 with a fresh data directory and SQLite file,
 * run by the same lifecycle as the server. `setup` runs as a module of its own, created
 * right after core: it can create users and repositories, and return test-only parts
 * (a static credential provider, extra API routes).
 */
export async function startTestServer(
  opts: Partial<Omit<CreateCoreOptions, 'dataDir' | 'masterKey'>> & {
    modules: CreateCoreOptions['modules'];
    dataDir?: string;
    /** Pass the same key with the same `dataDir` to restart a server with its stored secrets. */
    masterKey?: Buffer;
    /** How long a stalled body or download may idle before its connection is closed (default 120 s). */
    stallTimeoutMs?: number;
    setup?: (ctx: CoreContext) => void | ModuleInstance | Promise<void | ModuleInstance>;
  },
): Promise<TestServer> {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'trove-test-'));
  const setup = opts.setup;
  const running = await startModules({
    log: pino({ level: process.env.TROVE_TEST_LOG ?? 'silent' }),
    env: {},
    followLogLevel: !!process.env.TROVE_TEST_LOG,
    ...opts,
    modules: [...(setup ? [defineModule({ name: 'test-setup', create: async (ctx) => (await setup(ctx)) ?? {} })] : []), ...opts.modules],
    dataDir,
    masterKey: opts.masterKey ?? randomBytes(32),
  });
  const app = buildHttpApp(running);
  const server = await listen(app, { host: '127.0.0.1', port: 0, answers: new AnswerCache(running.core), ...(opts.stallTimeoutMs !== undefined ? { stallTimeoutMs: opts.stallTimeoutMs } : {}) });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    ctx: running.core,
    app,
    dataDir,
    running,
    instance<I>(name: string): I {
      const m = running.modules.find((x) => x.name === name);
      if (!m) throw new Error(`no module ${name} on this server`);
      return m.instance as I;
    },
    async close() {
      // Tests end abruptly: drop keep-alive sockets now instead of waiting for clients to let go.
      const closed = new Promise<void>((r) => server.close(() => r()));
      server.closeAllConnections();
      await closed;
      await running.stop();
      if (!opts.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
