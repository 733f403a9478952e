import { AnswerCache, BOOT_VARIABLES, buildHttpApp, createCore, createStorage, listen, type BootConfig, type CoreContext } from '@trove/core';
import { authMigrations, authSettingsGroups, createAuth } from '@trove/auth';
import { debianFormat } from '@trove/format-debian';
import { mavenFormat } from '@trove/format-maven';
import { rawFormat } from '@trove/format-raw';
import { createMirror, mirrorMigrations, mirrorSettings } from '@trove/mirror';
import { webDistDir } from '@trove/web/dist-path';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { cliTarballPath } from 'trove-cli/tarball-path';
import { cliDownload } from './downloads.js';
import { webUi } from './web.js';

/** Every format this server offers. Registration is explicit: no directory scanning. */
export const FORMATS = [mavenFormat, debianFormat, rawFormat];

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
  const ctx = await createCore({
    dataDir: boot.dataDir,
    masterKey: boot.masterKey,
    dev: boot.dev,
    env,
    log,
    formats: FORMATS,
    settingsGroups: [...authSettingsGroups, mirrorSettings],
    migrations: [...authMigrations, mirrorMigrations],
  });
  for (const name of ctx.settings.unknownEnv(BOOT_VARIABLES)) log.warn({ variable: name }, 'ignoring unknown TR_ variable');

  const storage = createStorage(ctx);
  const auth = createAuth(ctx);
  ctx.credentials.resolver = auth.resolver;
  await auth.bootstrapAdmin(boot.bootstrapAdmin);
  auth.start();
  for (const f of ctx.formats.all()) await f.start?.(ctx);
  storage.start();
  const mirror = createMirror(ctx);
  const app = buildHttpApp(ctx, { api: [...auth.routes, ...storage.apiRoutes, ...mirror.apiRoutes], web: cliDownload(cliTarballPath, webUi(webDistDir)) });

  const server = await listen(app, { host: boot.listen.host, port: boot.listen.port, answers: new AnswerCache(ctx) });
  const port = (server.address() as AddressInfo).port;
  const host = boot.listen.host && boot.listen.host !== '0.0.0.0' && boot.listen.host !== '::' ? boot.listen.host : '127.0.0.1';
  log.info({ port, dataDir: boot.dataDir }, 'trove listening');
  mirror.start();

  let closed = false;
  return {
    ctx,
    port,
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    async close() {
      if (closed) return;
      closed = true;
      await new Promise<void>((r) => server.close(() => r()));
      server.closeAllConnections();
      await mirror.stop();
      auth.stop();
      storage.stop();
      for (const f of ctx.formats.all()) await f.stop?.(ctx);
      await ctx.close();
    },
  };
}
