import { randomBytes } from 'node:crypto';
import type { AuthorizationServer, Client, ClientAuth } from 'oauth4webapi';
import { sha256hex } from '../publish/crypto.js';
import type { Claims } from './admin-rights.js';
import type { SsoConfig } from './config.js';
import { describe, httpOptions, oauth, type Provider } from './discovery.js';
import { SsoFailure } from './users.js';

/** How long the browser has between leaving for the provider and coming back. */
export const PENDING_SSO_MS = 10 * 60_000;
const MAX_PENDING = 10_000;

/** What the callback must see again: kept on the server, found through the browser's cookie. */
interface PendingSso {
  state: string;
  nonce: string;
  codeVerifier: string;
  issuer: string;
  redirectUrl: string;
  expiresAt: number;
}

/** The identity an SSO sign-in proved: ID token claims and, when the provider offers it, userinfo. */
export interface SsoIdentity {
  issuer: string;
  idToken: Claims & { sub: string };
  userinfo: Claims | null;
}

/**
 * The authorization code flow (OIDC Core 3.1) with PKCE S256, state and nonce, through
 * oauth4webapi. Each started sign-in is bound to the browser that started it: the cookie holds
 * 256 random bits, the server keeps state, nonce and code verifier under their SHA-256, and the
 * callback takes (deletes) the entry before anything else, so a state, code or cookie works at
 * most once. In memory: a restart only means clicking "Sign in with SSO" again.
 */
export class SsoFlow {
  private readonly pending = new Map<string, PendingSso>();

  /** The provider's authorization URL and the cookie value that binds it to this browser. */
  async start(cfg: SsoConfig, provider: Provider): Promise<{ url: string; cookie: string }> {
    const o = await oauth();
    const codeVerifier = o.generateRandomCodeVerifier();
    const entry: PendingSso = {
      state: o.generateRandomState(),
      nonce: o.generateRandomNonce(),
      codeVerifier,
      issuer: cfg.issuer,
      redirectUrl: cfg.redirectUrl,
      expiresAt: Date.now() + PENDING_SSO_MS,
    };
    const url = new URL(provider.as.authorization_endpoint!);
    url.searchParams.set('client_id', cfg.clientId);
    url.searchParams.set('redirect_uri', cfg.redirectUrl);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('scope', cfg.scope);
    url.searchParams.set('state', entry.state);
    url.searchParams.set('nonce', entry.nonce);
    url.searchParams.set('code_challenge', await o.calculatePKCECodeChallenge(codeVerifier));
    url.searchParams.set('code_challenge_method', 'S256');
    this.sweep();
    if (this.pending.size >= MAX_PENDING) this.pending.delete(this.pending.keys().next().value!);
    const cookie = randomBytes(32).toString('base64url');
    this.pending.set(sha256hex(cookie), entry);
    return { url: url.href, cookie };
  }

  /** The started sign-in behind a cookie, removed so it cannot be used twice. */
  take(cookie: string | undefined): PendingSso {
    if (!cookie) throw new SsoFailure('sso_failed', 'no sign-in in progress in this browser (state cookie missing)');
    const key = sha256hex(cookie);
    const entry = this.pending.get(key);
    this.pending.delete(key);
    if (!entry || entry.expiresAt <= Date.now()) throw new SsoFailure('sso_failed', 'unknown, used or expired state cookie');
    return entry;
  }

  /**
   * Checks the provider's answer and redeems the code: state (and RFC 9207 `iss` when the
   * provider sends it), the token response, the ID token's issuer, audience, expiry, nonce and
   * signature (against the provider's JWKS), then userinfo for the same subject when offered.
   */
  async finish(cfg: SsoConfig, provider: Provider, entry: PendingSso, callback: URL): Promise<SsoIdentity> {
    const o = await oauth();
    const { as } = provider;
    const client: Client = { client_id: cfg.clientId };
    const auth = clientAuth(o, as, cfg.clientSecret);
    const step = async <T>(what: string, fn: () => Promise<T> | T): Promise<T> => {
      try {
        return await fn();
      } catch (err) {
        throw new SsoFailure('sso_failed', `${what}: ${describe(err)}`);
      }
    };
    const params = await step('authorization response refused', () => o.validateAuthResponse(as, client, callback.searchParams, entry.state));
    const opts = await httpOptions(cfg.issuer);
    const response = await step('code exchange failed', () =>
      o.authorizationCodeGrantRequest(as, client, auth, params, entry.redirectUrl, entry.codeVerifier, opts),
    );
    const tokens = await step('token response refused', () =>
      o.processAuthorizationCodeResponse(as, client, response, { expectedNonce: entry.nonce, requireIdToken: true }),
    );
    // The token came straight from the provider over TLS, which OIDC accepts in place of a
    // signature check; we check it anyway, so an http:// issuer or a misrouted token endpoint
    // cannot hand us an identity the provider's keys did not sign.
    await step('ID token signature refused', async () =>
      o.validateApplicationLevelSignature(as, response, { ...(await httpOptions(cfg.issuer)), [o.jwksCache]: provider.jwks }),
    );
    const idToken = o.getValidatedIdTokenClaims(tokens)! as Claims & { sub: string };
    let userinfo: Claims | null = null;
    if (as.userinfo_endpoint) {
      userinfo = await step('userinfo refused', async () => {
        const r = await o.userInfoRequest(as, client, tokens.access_token, await httpOptions(cfg.issuer));
        return (await o.processUserInfoResponse(as, client, idToken.sub, r)) as Claims;
      });
    }
    return { issuer: entry.issuer, idToken, userinfo };
  }

  private sweep(): void {
    const now = Date.now();
    for (const [k, p] of this.pending) if (p.expiresAt <= now) this.pending.delete(k);
  }
}

/** Client secret in the Authorization header, unless the provider lists only `client_secret_post`. */
function clientAuth(o: typeof import('oauth4webapi'), as: AuthorizationServer, secret: string): ClientAuth {
  const methods = as.token_endpoint_auth_methods_supported;
  if (methods && !methods.includes('client_secret_basic') && methods.includes('client_secret_post')) return o.ClientSecretPost(secret);
  return o.ClientSecretBasic(secret);
}
