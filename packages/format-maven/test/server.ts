import { request } from 'node:http';
import type { CoreContext, Credential } from '@trove/core';
import { startTestServer, type TestServer } from '@trove/core/testing/server';
import { basic, rememberingResolver, staticResolver } from '@trove/core/testing/resolver';
import { mavenFormat } from '../src/index.js';

export { basic };

/**
 * A real server with Maven repositories: `releases` (anonymous reads), `private` (alice reads),
 * `rel-only` (version policy release), `snap-only` (snapshot). Passwords: `pub-<repo>` is a CI
 * publish session for that repository, `alice` and `bob` are users with and without read on `private`.
 * Resolutions are remembered as the auth module remembers them, so repeated GETs with the same
 * password take the lean read path (answered from memory) as they do in production.
 */
export async function mavenServer(env: Record<string, string> = {}): Promise<TestServer> {
  return startTestServer({
    modules: [mavenFormat],
    env,
    setup: async (ctx: CoreContext) => {
      const alice = ctx.users.create({ username: 'alice' });
      const bob = ctx.users.create({ username: 'bob' });
      await ctx.repos.create({ name: 'releases', format: 'maven', anonymous_read: true });
      const priv = await ctx.repos.create({ name: 'private', format: 'maven' });
      await ctx.repos.create({ name: 'rel-only', format: 'maven', anonymous_read: true, config: { version_policy: 'release' } });
      await ctx.repos.create({ name: 'snap-only', format: 'maven', anonymous_read: true, config: { version_policy: 'snapshot' } });
      ctx.permissions.set(priv, 'alice', 'read');
      const publish = (repo: string): Credential => ({ type: 'publish', grant: { sessionId: 's-' + repo, repo, proof: 'oidc', user: null, actor: 'ci:acme/widgets' } });
      const resolver = staticResolver({
        'pub-releases': publish('releases'),
        'pub-private': publish('private'),
        'pub-rel-only': publish('rel-only'),
        'pub-snap-only': publish('snap-only'),
        alice: { type: 'user', via: 'password', user: alice },
        bob: { type: 'user', via: 'password', user: bob },
      });
      return { credentials: { resolver: rememberingResolver(ctx.generations, resolver) } };
    },
  });
}

/** Reads the body at once, so no response is left holding a connection when a test ignores it. */
async function settled(r: Promise<Response>): Promise<Response> {
  const res = await r;
  const body = Buffer.from(await res.arrayBuffer());
  return new Response(body.length ? body : null, { status: res.status, headers: res.headers });
}

export function client(s: TestServer) {
  const put = (path: string, body: Buffer | string, password = 'pub-releases', headers: Record<string, string> = {}) =>
    settled(fetch(`${s.url}/maven/${path}`, { method: 'PUT', body, headers: { Authorization: basic(password), ...headers } }));
  const get = (path: string, password?: string, headers: Record<string, string> = {}) =>
    settled(fetch(`${s.url}/maven/${path}`, { headers: { ...(password ? { Authorization: basic(password) } : {}), ...headers }, redirect: 'manual' }));
  return { put, get };
}

/** A request whose path is sent exactly as written (fetch would normalise dot segments). */
export function rawRequest(port: number, method: string, path: string, password?: string, body = 'x') {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers: password ? { Authorization: basic(password) } : {} }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, body: text }));
    });
    req.on('error', reject);
    req.end(method === 'PUT' ? body : undefined);
  });
}
