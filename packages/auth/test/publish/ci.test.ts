import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as jose from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import { basicAuth, call, rawPut, startHarness, type Harness } from './harness.js';

let h: Harness;
let jwksServer: Server | undefined;
afterEach(async () => {
  await h?.close();
  if (jwksServer) await new Promise((r) => jwksServer!.close(r));
  jwksServer = undefined;
});

const ISS = 'https://token.actions.example';
const AUD = 'trove';

/** A CI issuer minted in the test: RS256 (GitHub style) or ES256 (GitLab style) keys, plus a rogue key it does not publish. */
async function issuer(alg: 'RS256' | 'ES256' = 'RS256') {
  const { privateKey, publicKey } = await jose.generateKeyPair(alg);
  const rogue = await jose.generateKeyPair(alg);
  const jwks = { keys: [{ ...(await jose.exportJWK(publicKey)), kid: 'k1', alg, use: 'sig' }] };
  const mint = async (o: { claims?: Record<string, unknown>; iss?: string; aud?: string; exp?: string | number; key?: 'rogue' } = {}) =>
    new jose.SignJWT({ repository: 'acme/widgets', workflow: 'release', ref: 'refs/tags/v1', sha: 'abc123', ...o.claims })
      .setProtectedHeader({ alg, kid: 'k1' })
      .setIssuer(o.iss ?? ISS)
      .setSubject('repo:acme/widgets:ref:refs/tags/v1')
      .setAudience(o.aud ?? AUD)
      .setIssuedAt()
      .setExpirationTime(o.exp ?? '5m')
      .sign(o.key === 'rogue' ? rogue.privateKey : privateKey);
  return { jwks, mint };
}

const policy = (jwks: unknown, extra: Record<string, unknown> = {}) => ({
  name: 'widgets',
  issuer: ISS,
  audience: AUD,
  claims: { repository: ['acme/widgets'], ref: ['refs/tags/v1', 'refs/heads/main'] },
  jwks: typeof jwks === 'string' ? jwks : JSON.stringify(jwks),
  repos: ['files'],
  ...extra,
});

const oidc = (token: string, repo = 'files') => call(h, '/api/publish/sessions/oidc', { body: { token, repo } });

describe('CI proof (OIDC trust policies)', () => {
  for (const alg of ['RS256', 'ES256'] as const) {
    it(`opens a session from a matching ${alg} identity token and writes through a raw PUT as ci:<repository>`, async () => {
      h = await startHarness();
      const ci = await issuer(alg);
      const t = await call(h, '/api/publish/trusts', { auth: 'root@session', body: policy(ci.jwks) });
      expect(t.status).toBe(201);
      const s = await oidc(await ci.mint());
      expect(s.status).toBe(201);
      expect(s.body).toMatchObject({ repo: 'files', format: 'raw' });
      expect((await rawPut(h, 'files', 'ci/app.tgz', 'bits', s.body.token)).status).toBe(201);
      expect(h.ctx.assets.get(h.ctx.repos.byName('files')!, 'ci/app.tgz')?.uploader).toBe('ci:acme/widgets');
      expect((await rawPut(h, 'other', 'x', 'x', s.body.token)).status).toBe(401);
      const log = await call(h, '/api/publish/log', { auth: 'root' });
      expect(log.body.items[0]).toMatchObject({
        proof: 'oidc',
        actor: 'ci:acme/widgets',
        user: null,
        trust: { id: t.body.id, name: 'widgets' },
        claims: { repository: 'acme/widgets', workflow: 'release', ref: 'refs/tags/v1', sha: 'abc123' },
      });
    });
  }

  it('refuses wrong issuer, wrong audience, expired tokens, a rogue key, claim mismatch, unlisted repo and disabled policies', async () => {
    h = await startHarness({ env: { TR_TRUSTED_PROXIES: '127.0.0.1/32,::1/128' } });
    const ci = await issuer();
    const t = await call(h, '/api/publish/trusts', { auth: 'root@session', body: policy(ci.jwks) });
    expect((await oidc(await ci.mint({ iss: 'https://evil.example' }))).status).toBe(401);
    expect((await oidc(await ci.mint({ aud: 'someone-else' }))).status).toBe(401);
    const expired = await oidc(await ci.mint({ exp: Math.floor(Date.now() / 1000) - 60 }));
    expect(expired.status).toBe(401);
    expect(expired.body.error).toMatch(/expired/);
    expect((await oidc(await ci.mint({ key: 'rogue' }))).status).toBe(401);
    expect((await oidc('not-a-jwt')).status).toBe(401);
    expect((await oidc(await ci.mint({ claims: { repository: 'evil/widgets' } }))).status).toBe(403);
    expect((await oidc(await ci.mint({ claims: { ref: 'refs/heads/feature' } }))).status).toBe(403);
    expect((await oidc(await ci.mint({ claims: { ref: ['refs/tags/v1'] } }))).status).toBe(403); // arrays never match
    expect((await oidc(await ci.mint(), 'other')).status).toBe(403);
    // An unsigned token with the right claims.
    const none = new jose.UnsecuredJWT({ repository: 'acme/widgets', ref: 'refs/tags/v1' }).setIssuer(ISS).setAudience(AUD).setExpirationTime('5m').encode();
    expect((await oidc(none)).status).toBe(401);
    // The 401s above counted against this address: the rest comes from another one.
    const elsewhere = { 'x-forwarded-for': '10.0.0.2' };
    const off = await call(h, `/api/publish/trusts/${t.body.id}`, { method: 'PATCH', auth: 'root@session', body: { disabled: true }, headers: elsewhere });
    expect(off.status).toBe(200);
    const other = await call(h, '/api/publish/sessions/oidc', { body: { token: await ci.mint(), repo: 'files' }, headers: elsewhere });
    expect(other.status).toBe(401);
  });

  it('refuses a verified token no policy allows with a 403 naming no policy or claim, not counted against the address', async () => {
    h = await startHarness();
    const ci = await issuer();
    expect((await call(h, '/api/publish/trusts', { auth: 'root@session', body: policy(ci.jwks, { name: 'internal-release-widgets' }) })).status).toBe(201);
    await h.ctx.assets.commitBytes({ repo: h.ctx.repos.byName('files')!, path: 'a.txt', bytes: 'hello', contentType: 'text/plain', onExisting: 'deny', uploader: 'root' });
    const refusals = [await oidc(await ci.mint({ claims: { repository: 'mallory/anything' } })), await oidc(await ci.mint(), 'other')];
    for (const r of refusals) {
      expect(r.status).toBe(403);
      expect(r.body.error).not.toMatch(/internal-release-widgets|claim|mallory|refs\//i);
    }
    expect(refusals[0]!.body).toEqual(refusals[1]!.body);
    // One misconfigured job retrying on a shared runner (one address for everyone behind it): more
    // refusals than the burst of 10. SPEC "Limits": only failed publish-token attempts and wrong
    // second-factor codes count, and a verified token is neither, so nobody else there is locked out.
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await oidc(await ci.mint({ claims: { ref: 'refs/heads/feature' } }))).status);
    expect(statuses).toEqual(Array(11).fill(403));
    const read = await fetch(`${h.s.url}/raw/files/a.txt`, { headers: { authorization: basicAuth('alice') } });
    expect(read.status).toBe(200);
    expect((await oidc(await ci.mint())).status).toBe(201);
  });

  it('ends the policy\'s open sessions when issuer, audience, claims, jwks or repos change, or it is disabled or deleted', async () => {
    h = await startHarness();
    const ci = await issuer();
    const other = await issuer();
    const t = await call(h, '/api/publish/trusts', { auth: 'root@session', body: policy(ci.jwks) });
    const id = t.body.id;
    const changes: [Record<string, unknown>, Record<string, unknown>][] = [
      [{ audience: 'trove2' }, { audience: AUD }],
      [{ claims: { repository: ['acme/widgets'] } }, { claims: policy(null).claims }],
      [{ jwks: JSON.stringify(other.jwks) }, { jwks: JSON.stringify(ci.jwks) }],
      [{ repos: ['files', 'other'] }, { repos: ['files'] }],
      [{ issuer: 'https://other.example' }, { issuer: ISS }],
      [{ disabled: true }, { disabled: false }],
    ];
    for (const [change, restore] of changes) {
      const s = await oidc(await ci.mint());
      expect(s.status, JSON.stringify(change)).toBe(201);
      // A rename alone keeps sessions open.
      await call(h, `/api/publish/trusts/${id}`, { method: 'PATCH', auth: 'root@session', body: { name: 'renamed-' + Object.keys(change)[0] } });
      expect((await rawPut(h, 'files', 'ok.txt', 'ok', s.body.token)).status).not.toBe(401);
      const p = await call(h, `/api/publish/trusts/${id}`, { method: 'PATCH', auth: 'root@session', body: change });
      expect(p.status).toBe(200);
      expect((await rawPut(h, 'files', 'late.txt', 'x', s.body.token)).status, JSON.stringify(change)).toBe(401);
      await call(h, `/api/publish/trusts/${id}`, { method: 'PATCH', auth: 'root@session', body: restore });
    }
    const s = await oidc(await ci.mint());
    expect((await call(h, `/api/publish/trusts/${id}`, { method: 'DELETE', auth: 'root@session' })).status).toBe(204);
    expect((await rawPut(h, 'files', 'late.txt', 'x', s.body.token)).status).toBe(401);
    const log = await call(h, '/api/publish/log', { auth: 'root' });
    expect(log.body.items[0]).toMatchObject({ closed_reason: 'trust policy deleted', trust: { id: null, name: expect.stringMatching(/^renamed-/) } });
    expect(log.body.items.map((e: any) => e.closed_reason)).toContain('trust policy disabled');
    expect(log.body.items.map((e: any) => e.closed_reason)).toContain('trust policy changed');
  });

  it('fetches a JWKS URL and caches it', async () => {
    h = await startHarness();
    const ci = await issuer();
    let fetches = 0;
    jwksServer = createServer((_, res) => {
      fetches++;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(ci.jwks));
    });
    await new Promise<void>((r) => jwksServer!.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}/jwks`;
    expect((await call(h, '/api/publish/trusts', { auth: 'root@session', body: policy(url) })).status).toBe(201);
    expect((await oidc(await ci.mint())).status).toBe(201);
    expect((await oidc(await ci.mint())).status).toBe(201);
    expect(fetches).toBe(1);
    expect((await oidc(await ci.mint({ key: 'rogue' }))).status).toBe(401);
    // Remote key sets must be https except on loopback.
    const plain = await call(h, '/api/publish/trusts', { auth: 'root@session', body: policy('http://keys.example/jwks', { name: 'plain' }) });
    expect(plain.status).toBe(400);
  });
});
