import type { CoreContext } from '@trove/core';
import { staticResolver } from '@trove/core/testing/resolver';
import { startTestServer, type TestServer } from '@trove/core/testing/server';
import { rawFormat } from '../src/index.js';

/** A test server with one anonymously readable raw repository, `files`; the Basic password `pub` may publish to it, `admin` is an admin's UI session. */
export function startFilesServer(opts: { stallTimeoutMs?: number } = {}): Promise<TestServer> {
  return startTestServer({
    ...opts,
    modules: [rawFormat],
    setup: async (ctx: CoreContext) => {
      await ctx.repos.create({ name: 'files', format: 'raw', anonymous_read: true });
      const admin = ctx.users.create({ username: 'admin', isAdmin: true });
      const resolver = staticResolver({
        pub: { type: 'publish', grant: { sessionId: 's-files', repo: 'files', proof: 'oidc', user: null, actor: 'ci' } },
        admin: { type: 'user', via: 'session', user: admin },
      });
      return { credentials: { resolver } };
    },
  });
}
