import { Hono } from 'hono';
import { fileURLToPath } from 'node:url';
import type { CoreContext, MigrationSet, TroveEnv } from '@trove/core';
import type { PublishingDeps, PublishingModule } from '../contracts.js';
import { enrollmentLimiter } from '../rate-limit/token-buckets.js';
import { deviceRoutes } from './device-routes.js';
import { DeviceStore } from './devices.js';
import { NonceStore } from './nonces.js';
import { sessionRoutes } from './session-routes.js';
import { SessionStore } from './sessions.js';
import { trustRoutes } from './trust-routes.js';
import { TrustStore } from './trusts.js';

/** The publishing tables (`drizzle/publish`), tracked in their own migrations table. Apply after core's. */
export const publishMigrations: MigrationSet = {
  name: 'publish',
  folder: fileURLToPath(new URL('../../drizzle/publish', import.meta.url)),
};

/** How often the background job purges the publish log and stale enrollments. */
const PURGE_EVERY_MS = 3_600_000;

/**
 * Publishing: publish sessions (device key, CI identity, manual proof), device
 * enrollment, CI trust policies and the publish log.
 *
 * Wiring (the accounts half / server):
 * - `createCore({ settingsGroups: [publishSettings, ...], migrations: [publishMigrations, ...] })`;
 * - mount `routes` at `/api` (`buildHttpApp(ctx, { api: [publishing.routes] })`), call `start()`/`stop()`;
 * - the credential resolver passes any `trs_` string (Basic password with any user name, or
 *   Bearer) to `verifier.verify`; a grant becomes `{type: 'publish', grant}`. On `null` it must
 *   count a failure (`failures.fail(['ip:<client ip>'])`, the verifier has no IP) and answer 401
 *   (with the Basic challenge on format routes). The grant is rebuilt on every call from the
 *   current user row; cache it only as the credential cache does, until the `access` generation
 *   moves (closing a session bumps it).
 */
export function createPublishing(ctx: CoreContext, deps: PublishingDeps): PublishingModule {
  const sessions = new SessionStore(ctx);
  const devices = new DeviceStore(ctx);
  const trusts = new TrustStore(ctx);
  const nonces = new NonceStore();
  const enrollLimiter = enrollmentLimiter();

  const routes = new Hono<TroveEnv>();
  routes.route('/', deviceRoutes({ ctx, deps, devices, sessions, enrollLimiter }));
  routes.route('/', sessionRoutes({ ctx, deps, devices, sessions, nonces, trusts }));
  routes.route('/', trustRoutes(ctx, trusts, sessions));

  const purge = () => {
    try {
      const log = sessions.purge();
      const enroll = devices.purge();
      nonces.sweep();
      if (log || enroll) ctx.log.info({ sessions: log, enrollments: enroll }, 'purged expired publish records');
    } catch (err) {
      ctx.log.error({ err }, 'publish log purge failed');
    }
  };
  let timer: NodeJS.Timeout | undefined;

  return {
    routes,
    verifier: { verify: async (token) => sessions.verify(token) },
    endSessionsOf: (userId) => void sessions.closeForUser(userId, 'user disabled'),
    start() {
      if (timer) return;
      purge();
      timer = setInterval(purge, PURGE_EVERY_MS);
      timer.unref();
    },
    stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
    },
  };
}
