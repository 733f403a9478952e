import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
// @ts-expect-error oidc-provider ships no types; installed at the workspace root for tests.
import Provider from 'oidc-provider';
import * as jose from 'jose';

/** One account of the test provider: `claims` go to the ID token and userinfo, `userinfoOnly` only to userinfo. */
export interface TestAccount {
  sub: string;
  claims?: Record<string, unknown>;
  userinfoOnly?: Record<string, unknown>;
}

export interface TestProviderOptions {
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
  accounts: TestAccount[];
  /** Token endpoint authentication the client is registered with. */
  tokenAuth?: 'client_secret_basic' | 'client_secret_post';
}

/**
 * A real OpenID Connect provider (npm `oidc-provider` 9, in this process) for SSO tests,
 * after scripts/clients/oidc-provider.mjs: one confidential client, RS256 ID tokens, and
 * sign-in without a page: the account named by `login_hint`, else the one set with
 * `nextLogin(sub)`, else the first. Claims are per account; any claim name an account carries
 * is granted with the `openid` scope except the standard email/profile/groups ones, which
 * follow their scopes. `requests` counts requests by path (discovery caching is tested on it).
 */
export class TestProvider {
  readonly requests = new Map<string, number>();
  /** When true, `/jwks` answers with another key under the same `kid`: ID token signatures no longer verify. */
  serveRogueKeys = false;
  rogueJwks: unknown;
  private next: string | null = null;
  private constructor(
    readonly issuer: string,
    private readonly server: http.Server,
    private readonly accounts: Map<string, TestAccount>,
  ) {}

  static async start(opts: TestProviderOptions): Promise<TestProvider> {
    const server = http.createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const accounts = new Map(opts.accounts.map((a) => [a.sub, structuredClone(a)]));
    const p = new TestProvider(issuer, server, accounts);

    const standard: Record<string, string[]> = {
      email: ['email', 'email_verified'],
      profile: ['name', 'preferred_username'],
      groups: ['groups'],
    };
    const known = new Set(Object.values(standard).flat());
    const custom = new Set<string>();
    for (const a of opts.accounts) for (const k of Object.keys({ ...a.claims, ...a.userinfoOnly })) if (!known.has(k)) custom.add(k);

    const { privateKey } = await jose.generateKeyPair('RS256', { extractable: true });
    const rogue = await jose.generateKeyPair('RS256', { extractable: true });
    p.rogueJwks = { keys: [{ ...(await jose.exportJWK(rogue.publicKey)), kid: 'test-rs256', alg: 'RS256', use: 'sig' }] };
    const provider = new Provider(issuer, {
      clients: [
        {
          client_id: opts.clientId,
          client_secret: opts.clientSecret,
          redirect_uris: opts.redirectUris,
          grant_types: ['authorization_code'],
          response_types: ['code'],
          token_endpoint_auth_method: opts.tokenAuth ?? 'client_secret_basic',
        },
      ],
      jwks: { keys: [{ ...(await jose.exportJWK(privateKey)), kid: 'test-rs256', alg: 'RS256', use: 'sig' }] },
      cookies: { keys: [crypto.randomBytes(16).toString('hex')] },
      claims: { openid: ['sub', ...custom], ...standard },
      conformIdTokenClaims: false,
      async findAccount(_ctx: unknown, sub: string) {
        const a = accounts.get(sub);
        return (
          a && {
            accountId: sub,
            async claims(use: string) {
              return { sub, preferred_username: sub, ...a.claims, ...(use === 'userinfo' ? a.userinfoOnly : {}) };
            },
          }
        );
      },
      features: { devInteractions: { enabled: false } },
      interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
      ttl: { AccessToken: 3600, IdToken: 3600, Interaction: 600, Session: 3600, Grant: 3600, AuthorizationCode: 60 },
    });
    provider.on('server_error', (_ctx: unknown, err: Error) => console.error('oidc-provider server_error', err));
    const callback = provider.callback();

    server.on('request', async (req, res) => {
      const path = new URL(req.url!, issuer).pathname;
      p.requests.set(path, (p.requests.get(path) ?? 0) + 1);
      try {
        if (path === '/jwks' && p.serveRogueKeys) {
          res.writeHead(200, { 'content-type': 'application/jwk-set+json' });
          return res.end(JSON.stringify(p.rogueJwks));
        }
        const m = /^\/interaction\/([^/]+)$/.exec(path);
        if (!m) return callback(req, res);
        const details = await provider.interactionDetails(req, res);
        if (details.prompt.name === 'login') {
          const hint = details.params.login_hint;
          const sub = accounts.has(hint) ? hint : (p.next ?? opts.accounts[0]!.sub);
          p.next = null;
          return await provider.interactionFinished(req, res, { login: { accountId: sub } }, { mergeWithLastSubmission: false });
        }
        // consent: grant what was asked for
        const grant = details.grantId
          ? await provider.Grant.find(details.grantId)
          : new provider.Grant({ accountId: details.session.accountId, clientId: details.params.client_id });
        const d = details.prompt.details;
        if (d.missingOIDCScope) grant.addOIDCScope(d.missingOIDCScope.join(' '));
        if (d.missingOIDCClaims) grant.addOIDCClaims(d.missingOIDCClaims);
        return await provider.interactionFinished(req, res, { consent: { grantId: await grant.save() } }, { mergeWithLastSubmission: true });
      } catch (err) {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(String((err as Error).message));
      }
    });
    return p;
  }

  /** An account's live record: changing its claims changes what the next sign-in carries. */
  account(sub: string): TestAccount {
    const a = this.accounts.get(sub);
    if (!a) throw new Error(`no test account ${sub}`);
    return a;
  }

  /** The account the next sign-in without `login_hint` uses (once). */
  nextLogin(sub: string): void {
    if (!this.accounts.has(sub)) throw new Error(`no test account ${sub}`);
    this.next = sub;
  }

  async stop(): Promise<void> {
    const closed = new Promise<void>((r) => this.server.close(() => r()));
    this.server.closeAllConnections();
    await closed;
  }
}
