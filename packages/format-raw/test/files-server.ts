import type { CoreContext } from '@trove/core';
import { staticResolver } from '@trove/core/testing/resolver';
import { startTestServer, type TestServer } from '@trove/core/testing/server';
import { rawFormat } from '../src/index.js';

/** A test server with one anonymously readable raw repository, `files`; the Basic password `pub` may publish to it. */
export function startFilesServer(): Promise<TestServer> {
  return startTestServer({
    modules: [rawFormat],
    setup: async (ctx: CoreContext) => {
      await ctx.repos.create({ name: 'files', format: 'raw', anonymous_read: true });
      const resolver = staticResolver({
        pub: { type: 'publish', grant: { sessionId: 's-files', repo: 'files', proof: 'oidc', user: null, actor: 'ci' } },
      });
      return { credentials: { resolver } };
    },
  });
}
