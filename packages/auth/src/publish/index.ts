import { Hono } from 'hono';
import type { CoreContext, TroveEnv } from '@trove/core';
import type { PublishingDeps, PublishingModule } from '../contracts.js';

/**
 * Publishing: publish sessions (device key, CI identity, manual proof), device
 * enrollment, CI trust policies and the publish log. Routes are mounted at `/api`.
 */
export function createPublishing(ctx: CoreContext, deps: PublishingDeps): PublishingModule {
  void ctx;
  void deps;
  const routes = new Hono<TroveEnv>();
  return {
    routes,
    verifier: { verify: async () => null },
    start() {},
    stop() {},
  };
}
