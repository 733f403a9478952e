import { asc, eq } from 'drizzle-orm';
import type { JWTVerifyGetKey } from 'jose';
import { badRequest, conflict, notFound, REPO_NAME, type CoreContext } from '@trove/core';
import { newId } from './crypto.js';
import { trusts, type TrustRow } from './schema.js';

export interface TrustInput {
  name: string;
  issuer: string;
  audience: string;
  claims: Record<string, string[]>;
  jwks: string;
  repos: string[];
  disabled: boolean;
}

/** Fields whose change ends the policy's open sessions (SPEC "Publish session" state table). */
const IDENTITY_FIELDS = ['issuer', 'audience', 'claims', 'jwks', 'repos'] as const;

/** jose (46 modules) is needed only when a policy is saved or a CI token checked: loaded then, not at start. */
let joseModule: Promise<typeof import('jose')> | undefined;
export const jose = () => (joseModule ??= import('jose'));

const isHttpUrl = (s: string) => /^https?:\/\//i.test(s);

/**
 * A JWKS URL must be https. Plain http is accepted only for loopback hosts, for local
 * CI test doubles: a key set fetched over the network without TLS could be swapped.
 */
function jwksUrl(s: string): URL {
  let url: URL;
  try {
    url = new URL(s);
  } catch {
    throw badRequest('jwks URL is not a valid URL');
  }
  const loopback = ['127.0.0.1', '[::1]', 'localhost'].includes(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) throw badRequest('jwks URL must use https');
  // The URL is shown to admins and kept in the policy: a key set needs no credentials to fetch.
  if (url.username || url.password) throw badRequest('jwks URL must not carry credentials (user:password@)');
  return url;
}

async function checkJwks(jwks: string): Promise<void> {
  if (isHttpUrl(jwks.trim())) {
    jwksUrl(jwks.trim());
    return;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(jwks);
  } catch {
    throw badRequest('jwks must be a JWKS JSON document or an https:// URL');
  }
  const keys = (parsed as { keys?: unknown })?.keys;
  if (!Array.isArray(keys) || keys.length === 0) throw badRequest('jwks must contain a non-empty "keys" array');
  // Symmetric or private keys have no place in a verification key set.
  for (const k of keys as Record<string, unknown>[]) {
    if (!k || typeof k !== 'object' || !['RSA', 'EC', 'OKP'].includes(String(k.kty))) throw badRequest('jwks keys must be public RSA, EC or OKP keys');
    if ('d' in k) throw badRequest('jwks must hold public keys only');
  }
  const { createLocalJWKSet } = await jose();
  createLocalJWKSet(parsed as never);
}

const str = (v: unknown, field: string, max = 2000): string => {
  if (typeof v !== 'string' || !v.trim() || v.length > max) throw badRequest(`${field} must be a non-empty string`);
  return v.trim();
};

function parseClaims(v: unknown): Record<string, string[]> {
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw badRequest('claims must be an object mapping claim names to arrays of allowed values');
  const out: Record<string, string[]> = {};
  for (const [k, vals] of Object.entries(v)) {
    if (!Array.isArray(vals) || vals.length === 0 || !vals.every((x) => typeof x === 'string' && x !== '')) {
      throw badRequest(`claims.${k} must be a non-empty array of non-empty strings`);
    }
    out[k] = [...new Set(vals as string[])];
  }
  // Without a claim constraint, every workflow at a public issuer (GitHub, GitLab) that asks
  // for this audience would match: a policy must name at least one claim (e.g. repository).
  if (Object.keys(out).length === 0) throw badRequest('claims must restrict at least one claim, e.g. {"repository": ["acme/widgets"]}');
  return out;
}

function parseRepos(v: unknown): string[] {
  if (!Array.isArray(v) || !v.every((r) => typeof r === 'string' && REPO_NAME.test(r))) throw badRequest('repos must be an array of repository names');
  return [...new Set(v as string[])];
}

/** Validates a whole input (POST) or the fields present (PATCH), merged over `base`. */
export async function parseTrust(body: Record<string, unknown>, base?: TrustInput): Promise<TrustInput> {
  const has = (k: string) => base === undefined || k in body;
  const out: TrustInput = base ? { ...base } : ({ disabled: false } as TrustInput);
  if (has('name')) out.name = str(body.name, 'name', 200);
  if (has('issuer')) out.issuer = str(body.issuer, 'issuer');
  if (has('audience')) out.audience = str(body.audience, 'audience');
  if (has('claims')) out.claims = parseClaims(body.claims);
  if (has('jwks')) {
    out.jwks = str(body.jwks, 'jwks', 256 * 1024);
    await checkJwks(out.jwks);
  }
  if (has('repos')) out.repos = parseRepos(body.repos);
  if ('disabled' in body) {
    if (typeof body.disabled !== 'boolean') throw badRequest('disabled must be true or false');
    out.disabled = body.disabled;
  }
  return out;
}

export function toInput(row: TrustRow): TrustInput {
  return {
    name: row.name,
    issuer: row.issuer,
    audience: row.audience,
    claims: JSON.parse(row.claims) as Record<string, string[]>,
    jwks: row.jwks,
    repos: JSON.parse(row.repos) as string[],
    disabled: row.disabled,
  };
}

export function trustJson(row: TrustRow) {
  return { id: row.id, ...toInput(row), created_at: row.createdAt.toISOString(), updated_at: row.updatedAt.toISOString() };
}

/** Whether an update changes what the policy trusts (and so must end its sessions). */
export function changesIdentity(before: TrustInput, after: TrustInput): boolean {
  return IDENTITY_FIELDS.some((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]));
}

/**
 * Trust policies plus a cache of their key sets. An inline JWKS is parsed once per
 * policy version. A URL key set uses jose's createRemoteJWKSet: keys are cached for
 * 10 minutes, an unknown `kid` refetches at most every 30 seconds (key rotation works
 * without hammering the issuer), and a fetch times out after 5 seconds.
 */
export class TrustStore {
  private readonly keySets = new Map<string, { version: number; jwks: string; get: JWTVerifyGetKey }>();

  constructor(private readonly ctx: CoreContext) {}

  list(): TrustRow[] {
    return this.ctx.db.select().from(trusts).orderBy(asc(trusts.name), asc(trusts.id)).all();
  }

  get(id: string): TrustRow {
    const row = this.ctx.db.select().from(trusts).where(eq(trusts.id, id)).get();
    if (!row) throw notFound(`trust policy ${id} not found`);
    return row;
  }

  /** True when the policy still exists, is enabled and trusts exactly what `row` did. */
  unchanged(row: TrustRow): boolean {
    const now = this.ctx.db.select().from(trusts).where(eq(trusts.id, row.id)).get();
    return !!now && !now.disabled && JSON.stringify(toInput(now)) === JSON.stringify(toInput(row));
  }

  private checkName(name: string, exceptId?: string): void {
    const other = this.ctx.db.select({ id: trusts.id }).from(trusts).where(eq(trusts.name, name)).get();
    if (other && other.id !== exceptId) throw conflict(`a trust policy named ${name} already exists`);
  }

  private values(input: TrustInput) {
    return { ...input, claims: JSON.stringify(input.claims), repos: JSON.stringify(input.repos) };
  }

  create(input: TrustInput): TrustRow {
    this.checkName(input.name);
    const now = new Date();
    return this.ctx.db.insert(trusts).values({ id: newId(), ...this.values(input), createdAt: now, updatedAt: now }).returning().get();
  }

  update(id: string, input: TrustInput): TrustRow {
    this.checkName(input.name, id);
    this.keySets.delete(id);
    return this.ctx.db.update(trusts).set({ ...this.values(input), updatedAt: new Date() }).where(eq(trusts.id, id)).returning().get();
  }

  delete(id: string): void {
    this.keySets.delete(id);
    this.ctx.db.delete(trusts).where(eq(trusts.id, id)).run();
  }

  /** Enabled policies for an issuer, in name order (the first that matches wins). */
  forIssuer(issuer: string): TrustRow[] {
    return this.list().filter((t) => !t.disabled && t.issuer === issuer);
  }

  async keySet(row: TrustRow): Promise<JWTVerifyGetKey> {
    const { createLocalJWKSet, createRemoteJWKSet } = await jose();
    const version = row.updatedAt.getTime();
    const hit = this.keySets.get(row.id);
    if (hit && hit.version === version && hit.jwks === row.jwks) return hit.get;
    const src = row.jwks.trim();
    const get = isHttpUrl(src)
      ? createRemoteJWKSet(jwksUrl(src), { cacheMaxAge: 600_000, cooldownDuration: 30_000, timeoutDuration: 5_000 })
      : createLocalJWKSet(JSON.parse(src));
    this.keySets.set(row.id, { version, jwks: row.jwks, get });
    return get;
  }
}
