import type { JWTPayload } from 'jose';
import { forbidden, unauthorized } from '@trove/core';
import type { TrustRow } from './schema.js';
import { jose, toInput, type TrustStore } from './trusts.js';

/** Asymmetric algorithms only: a key set never doubles as an HMAC secret, and `none` is never valid. */
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];

/** Claims copied into the publish log so it shows which CI run wrote what. */
const LOGGED_CLAIMS = ['repository', 'workflow', 'ref', 'sha', 'job_workflow_ref', 'run_id', 'sub', 'project_path', 'pipeline_id'];

export interface CiMatch {
  trust: TrustRow;
  actor: string;
  claims: Record<string, string>;
}

/** Scalar claims compare as strings; arrays and objects never match an allowed value. */
function claimString(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return undefined;
}

const fail = (why: string) => unauthorized(`CI identity token refused: ${why}`, false);

/**
 * Matches a CI identity token to a trust policy for `repo`. The unverified `iss` only
 * selects candidate policies; each candidate then verifies signature, issuer, audience
 * and expiry with its own key set. A token no enabled policy can verify gets 401; a
 * verified token whose claims or repository no policy allows gets 403 (SPEC: valid
 * credentials without permission). Anyone can mint a verified token at a public CI issuer,
 * so the 403 names no policy and no claim: `denied` gets that detail for the server log.
 */
export async function matchCiToken(store: TrustStore, token: string, repo: string, denied: (detail: string) => void = () => {}): Promise<CiMatch> {
  const { decodeJwt, jwtVerify } = await jose();
  let iss: string | undefined;
  try {
    iss = decodeJwt(token).iss;
  } catch {
    throw fail('not a JWT');
  }
  if (!iss) throw fail('no issuer');
  const candidates = store.forIssuer(iss);
  if (candidates.length === 0) throw fail('no enabled trust policy for this issuer');

  let verified = false;
  let lastError = 'signature, audience or expiry did not verify';
  let denial = '';
  for (const trust of candidates) {
    const policy = toInput(trust);
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, await store.keySet(trust), {
        issuer: policy.issuer,
        audience: policy.audience,
        algorithms: ALGORITHMS,
        requiredClaims: ['exp'],
        clockTolerance: 10,
      }));
    } catch (e) {
      lastError = (e as { code?: string }).code === 'ERR_JWT_EXPIRED' ? 'token expired' : lastError;
      continue;
    }
    verified = true;
    const mismatch = Object.entries(policy.claims).find(([k, allowed]) => {
      const v = claimString(payload[k]);
      return v === undefined || !allowed.includes(v);
    });
    if (mismatch) {
      denial ||= `claim ${mismatch[0]} does not match trust policy ${trust.name}`;
      continue;
    }
    if (!policy.repos.includes(repo)) {
      denial ||= `trust policy ${trust.name} does not list repository ${repo}`;
      continue;
    }
    const claims: Record<string, string> = {};
    for (const k of LOGGED_CLAIMS) {
      const v = claimString(payload[k]);
      if (v !== undefined) claims[k] = v.slice(0, 500);
    }
    const who = claimString(payload.repository) ?? claimString(payload.project_path) ?? claimString(payload.sub) ?? trust.name;
    return { trust, actor: `ci:${who}`.slice(0, 200), claims };
  }
  if (!verified) throw fail(lastError);
  denied(denial);
  throw forbidden('CI identity not allowed: no trust policy lets it publish to this repository');
}
