import type { allowInsecureRequests, AuthorizationServer, HttpRequestOptions, JWKSCacheInput } from 'oauth4webapi';

/** oauth4webapi loads on the first SSO request, not at server start. */
export const oauth = () => import('oauth4webapi');

/** A discovered provider: its metadata and the JSON Web Key Set cache oauth4webapi fills. */
export interface Provider {
  as: AuthorizationServer;
  jwks: JWKSCacheInput;
}

export class DiscoveryError extends Error {}

/** How long a stale copy serves after a failed refresh before the next attempt. */
const RETRY_MS = 60_000;

export interface DiscoveryOptions {
  /** Metadata older than this is fetched again at the next sign-in. Default 1 hour. */
  refreshMs?: number;
  /** When a refresh fails, a copy younger than this still serves sign-ins. Default 24 hours. */
  maxStaleMs?: number;
  /** One discovery request may take this long. Default 10 seconds. */
  timeoutMs?: number;
  warn?: (msg: string, detail: Record<string, unknown>) => void;
}

/**
 * An `http://` issuer is the operator's explicit choice (a provider on a private network, or
 * the tests'); oauth4webapi refuses plain HTTP unless told, so this follows the issuer's scheme.
 */
export async function httpOptions(issuer: string, timeoutMs = 10_000): Promise<Pick<HttpRequestOptions<'GET'>, 'signal' | typeof allowInsecureRequests>> {
  const o = await oauth();
  return { [o.allowInsecureRequests]: issuer.startsWith('http:'), signal: AbortSignal.timeout(timeoutMs) };
}

/** One discovery request, checked: the document's `issuer` must equal the configured one exactly. */
export async function discover(issuer: string, timeoutMs = 10_000): Promise<AuthorizationServer> {
  const o = await oauth();
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    throw new DiscoveryError('oidc.issuer is not a URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new DiscoveryError('oidc.issuer must start with http:// or https://');
  let as: AuthorizationServer;
  try {
    const res = await o.discoveryRequest(url, { algorithm: 'oidc', ...(await httpOptions(issuer, timeoutMs)) });
    as = await o.processDiscoveryResponse(url, res);
  } catch (err) {
    throw new DiscoveryError(`discovery at ${issuer} failed: ${describe(err)}`);
  }
  // oauth4webapi compares parsed URLs, for which `https://idp` and `https://idp/` are the same;
  // the SPEC wants the configured string to match exactly (Entra ID and Keycloak issuers differ
  // from a near miss only by that slash, and the ID token's `iss` is compared as a string).
  if (as.issuer !== issuer) throw new DiscoveryError(`the provider's issuer is ${JSON.stringify(as.issuer)}, not ${JSON.stringify(issuer)}; oidc.issuer must match it exactly`);
  for (const field of ['authorization_endpoint', 'token_endpoint', 'jwks_uri'] as const) {
    if (typeof as[field] !== 'string') throw new DiscoveryError(`the discovery document of ${issuer} has no ${field}`);
  }
  return as;
}

/**
 * The provider's discovery document, fetched once and refreshed after `refreshMs` at the next
 * sign-in (so key rotation and endpoint moves are picked up without a restart), never on every
 * sign-in. Concurrent sign-ins share one request. If a refresh fails, a copy up to
 * `maxStaleMs` old keeps sign-ins working through a short provider outage; past that, or with
 * no copy at all, `get` throws and the login route answers 503.
 */
export class DiscoveryCache {
  private cached: (Provider & { issuer: string; at: number }) | undefined;
  private inflight: { issuer: string; p: Promise<Provider> } | undefined;
  /** After a failed refresh, the cached copy serves without another attempt until then. */
  private retryAt = 0;
  private readonly refreshMs: number;
  private readonly maxStaleMs: number;

  constructor(private readonly opts: DiscoveryOptions = {}) {
    this.refreshMs = opts.refreshMs ?? 3_600_000;
    this.maxStaleMs = opts.maxStaleMs ?? 24 * 3_600_000;
  }

  async get(issuer: string): Promise<Provider> {
    const c = this.cached?.issuer === issuer ? this.cached : undefined;
    const now = Date.now();
    if (c && (now - c.at < this.refreshMs || now < this.retryAt)) return c;
    try {
      return await this.fetch(issuer);
    } catch (err) {
      if (c && Date.now() - c.at < this.maxStaleMs) {
        // Through an outage, sign-ins should not each wait for a timeout: try again in a minute.
        this.retryAt = Date.now() + RETRY_MS;
        this.opts.warn?.('SSO discovery refresh failed; using the cached document', { issuer, reason: describe(err) });
        return c;
      }
      throw err;
    }
  }

  /** A document just fetched elsewhere (the settings check) serves the next sign-ins. */
  prime(issuer: string, as: AuthorizationServer): void {
    if (this.cached?.issuer === issuer && this.cached.as.jwks_uri === as.jwks_uri) {
      this.cached = { ...this.cached, as, at: Date.now() };
    } else {
      this.cached = { issuer, as, jwks: {}, at: Date.now() };
    }
  }

  private fetch(issuer: string): Promise<Provider> {
    if (this.inflight?.issuer === issuer) return this.inflight.p;
    const p = discover(issuer, this.opts.timeoutMs).then((as) => {
      this.prime(issuer, as);
      return this.cached!;
    });
    const entry = { issuer, p };
    this.inflight = entry;
    const done = () => {
      if (this.inflight === entry) this.inflight = undefined;
    };
    p.then(done, done);
    return p;
  }
}

/** An error as one line for the operator's log: message and OAuth error code, never a response body (it may hold tokens). */
export function describe(err: unknown): string {
  if (err instanceof DiscoveryError) return err.message;
  const e = err as { name?: string; message?: string; error?: string; error_description?: string; code?: string };
  if (e?.error) return `${e.error}${e.error_description ? `: ${e.error_description}` : ''}`.slice(0, 500);
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') return 'timed out';
  const cause = (err as { cause?: { code?: string; message?: string } })?.cause;
  const base = e?.message ?? String(err);
  return (cause?.code ? `${base} (${cause.code})` : base).slice(0, 500);
}
