import * as jose from 'jose';
import { api } from './trove.mjs';

const ISSUER = 'https://ci.bench.invalid';
const AUDIENCE = 'trove-bench';

/**
 * A publish session for `repo` the way CI gets one (docs/publishing.md): the
 * admin creates a trust policy with an inline JWKS minted here, then a signed
 * identity token is exchanged at /api/publish/sessions/oidc. Returns the
 * session token, the Basic password for format writes.
 */
export async function publishSession(url, repo) {
  const { privateKey, publicKey } = await jose.generateKeyPair('ES256');
  const jwks = { keys: [{ ...(await jose.exportJWK(publicKey)), kid: 'bench', alg: 'ES256', use: 'sig' }] };
  const trust = await api(url, 'POST', '/api/publish/trusts', {
    asAdmin: true,
    body: {
      name: `bench-${repo}`,
      issuer: ISSUER,
      audience: AUDIENCE,
      claims: { repository: ['trove/bench'] },
      jwks: JSON.stringify(jwks),
      repos: [repo],
    },
  });
  if (trust.status !== 201) throw new Error(`trust policy: ${trust.status} ${JSON.stringify(trust.body)}`);
  const token = await new jose.SignJWT({ repository: 'trove/bench', workflow: 'bench', ref: 'refs/heads/main', sha: 'bench' })
    .setProtectedHeader({ alg: 'ES256', kid: 'bench' })
    .setIssuer(ISSUER)
    .setSubject('repo:trove/bench')
    .setAudience(AUDIENCE)
    .setIssuedAt()
    .setExpirationTime('10m')
    .sign(privateKey);
  const session = await api(url, 'POST', '/api/publish/sessions/oidc', { body: { token, repo } });
  if (session.status !== 201) throw new Error(`publish session: ${session.status} ${JSON.stringify(session.body)}`);
  return session.body.token;
}
