import { AnswerCache, BOOT_VARIABLES, buildHttpApp, listen, startModules, type AnyModule, type BootConfig, type CoreContext } from '@trove/core';
import { authModule } from '@trove/auth';
import { debianFormat } from '@trove/format-debian';
import { mavenFormat } from '@trove/format-maven';
import { rawFormat } from '@trove/format-raw';
import { mirrorModule } from '@trove/mirror';
import { webDistDir } from '@trove/web/dist-path';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { cliTarballPath } from 'trove-cli/tarball-path';
import { cliDownload } from './downloads.js';
import { webUi } from './web.js';

/** How long a stop waits for requests under way before it closes their connections. */
const SHUTDOWN_DRAIN_MS = 10_000;

/**
 * Every module this server runs, in start order (core's own module comes first by itself).
 * Registration is explicit: no directory scanning. A new format is one more line here.
 */
export function serverModules(boot: Pick<BootConfig, 'bootstrapAdmin'>): AnyModule[] {
  return [
    authModule({ bootstrapAdmin: boot.bootstrapAdmin }),
    mirrorModule(),
    mavenFormat,
    debianFormat,
    rawFormat,
  ];
}

export interface TroveServer {
  ctx: CoreContext;
  /** The base URL the listener answers on (loopback form for tests). */
  url: string;
  port: number;
  close(): Promise<void>;
}

/**
 * Builds the whole server from a boot configuration and starts listening.
 * `main.ts` calls it for production; the server's tests call it on port 0.
 */
export async function startServer(boot: BootConfig, log: Logger, env: Record<string, string | undefined> = process.env): Promise<TroveServer> {
  const running = await startModules({
    dataDir: boot.dataDir,
    masterKey: boot.masterKey,
    dev: boot.dev,
    env,
    log,
    modules: serverModules(boot),
  });
  const ctx = running.core;
  for (const name of ctx.settings.unknownEnv(BOOT_VARIABLES)) log.warn({ variable: name }, 'ignoring unknown TR_ variable');
  const app = buildHttpApp(running, { web: cliDownload(cliTarballPath, webUi(webDistDir)) });

  let server;
  try {
    server = await listen(app, { host: boot.listen.host, port: boot.listen.port, answers: new AnswerCache(running.core) });
  } catch (err) {
    await running.stop();
    throw err;
  }
  const port = (server.address() as AddressInfo).port;
  const host = boot.listen.host && boot.listen.host !== '0.0.0.0' && boot.listen.host !== '::' ? boot.listen.host : '127.0.0.1';
  log.info({ port, dataDir: boot.dataDir }, 'trove listening');

  let closed = false;
  return {
    ctx,
    port,
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    async close() {
      if (closed) return;
      closed = true;
      // Requests under way may finish for a while; one a client holds open must not hold the stop for good.
      const drained = new Promise<void>((r) => server.close(() => r()));
      server.closeIdleConnections();
      await Promise.race([drained, new Promise((r) => setTimeout(r, SHUTDOWN_DRAIN_MS).unref())]);
      server.closeAllConnections();
      await drained;
      await running.stop();
    },
  };
}
