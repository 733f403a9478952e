import { createPrivateKey, sign } from 'node:crypto';
import { loadDevice, updateDevice } from './config.js';
import { CliError } from './errors.js';
import { api, retryAfter, serverMessage, type Answer } from './http.js';
import { identityToken } from './oidc.js';
import { tell } from './terminal.js';

/** `POST /api/publish/sessions*` answers this; the token is shown once. */
export interface PublishSession {
  id: string;
  token: string;
  repo: string;
  format: string;
  expires_at: string;
}

export interface SessionRequest {
  url: string;
  repo: string;
  oidc?: boolean;
  audience?: string;
}

/** The byte string a device signs (SPEC "Versioning"): label, nonce, device id, repo; LF between, none after. */
export const signedMessage = (nonce: string, deviceId: string, repo: string) => Buffer.from(`service publish v1\n${nonce}\n${deviceId}\n${repo}`);

function sessionError(a: Answer, url: string, repo: string, proof: string): CliError {
  const msg = serverMessage(a);
  switch (a.status) {
    case 401:
      return new CliError(`${url} refused the ${proof}: ${msg}`);
    case 403:
      return new CliError(`no publish session for ${repo}: ${msg}`);
    case 404:
      return new CliError(`${msg} on ${url}`);
    case 429:
      return new CliError(`too many failed attempts from this address${retryAfter(a)}`);
    default:
      return new CliError(`${url} answered ${a.status} to the session request: ${msg}`);
  }
}

function checkSession(a: Answer): PublishSession {
  const s = a.body as Partial<PublishSession> | null;
  if (!s || typeof s.token !== 'string' || typeof s.id !== 'string') throw new CliError('the server answered a session without a token');
  return { id: s.id, token: s.token, repo: String(s.repo), format: String(s.format ?? ''), expires_at: String(s.expires_at ?? '') };
}

/** Opens a publish session with the device key of `url`, or with the CI identity token (`oidc`). */
export async function openSession(req: SessionRequest): Promise<PublishSession> {
  const { url, repo } = req;
  if (req.oidc) {
    const token = await identityToken(req.audience ?? url);
    const a = await api(url, '/api/publish/sessions/oidc', { body: { token, repo } });
    if (a.status !== 201) throw sessionError(a, url, repo, 'CI identity token');
    return checkSession(a);
  }
  const device = loadDevice(url);
  if (!device) throw new CliError(`not logged in to ${url}: run \`trove login ${url}\` (or use --oidc in CI)`);
  const { record } = device;
  const ch = await api(url, '/api/publish/challenge', { body: { device_id: record.device_id } });
  if (ch.status === 404) throw new CliError(`${url} no longer accepts this device (revoked or expired): run \`trove login ${url}\` again`);
  if (ch.status !== 200 || typeof ch.body?.nonce !== 'string') throw sessionError(ch, url, repo, 'challenge request');
  // The challenge also tells the device's current name and expiry; keep them for `trove status`.
  if (typeof ch.body.expires_at === 'string' && (ch.body.expires_at !== record.expires_at || ch.body.name !== record.name)) {
    updateDevice({ ...record, name: String(ch.body.name ?? record.name), expires_at: ch.body.expires_at });
  }
  const nonce = ch.body.nonce as string;
  const signature = sign(null, signedMessage(nonce, record.device_id, repo), createPrivateKey(device.privateKeyPem)).toString('base64url');
  const a = await api(url, '/api/publish/sessions', { body: { device_id: record.device_id, repo, nonce, signature } });
  if (a.status !== 201) throw sessionError(a, url, repo, 'device signature');
  return checkSession(a);
}

/** `DELETE /api/publish/sessions/{id}` with the session's own token; true when closed (or already gone). */
export async function closeSession(url: string, s: PublishSession): Promise<boolean> {
  try {
    const a = await api(url, `/api/publish/sessions/${encodeURIComponent(s.id)}`, { method: 'DELETE', auth: `Bearer ${s.token}` });
    // 401: it already expired or was closed; nothing is left open either way.
    return a.status === 204 || a.status === 401;
  } catch {
    return false;
  }
}

/** Closes the session; on failure says so on stderr without changing the outcome (it expires by itself). */
export async function closeOrWarn(url: string, s: PublishSession): Promise<void> {
  if (!(await closeSession(url, s))) tell(`trove: could not close publish session ${s.id}; it expires at ${s.expires_at}`);
}
