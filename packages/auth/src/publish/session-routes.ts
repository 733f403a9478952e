import { Hono, type Context } from 'hono';
import { verifyAsync } from '@noble/ed25519';
import {
  badRequest,
  forbidden,
  listQuery,
  notFound,
  page,
  requireAdmin,
  unauthorized,
  type CoreContext,
  type RepoRow,
  type TroveEnv,
  type UserRow,
} from '@trove/core';
import type { PublishingDeps } from '../contracts.js';
import { fromBase64url } from './crypto.js';
import { ownRecord, type DeviceStore } from './devices.js';
import { body, freshProof, ipKey, ipOf, reqString, requirePublisher, requireSessionUser } from './http.js';
import type { NonceStore } from './nonces.js';
import { matchCiToken } from './oidc.js';
import { isCursor } from '../paging.js';
import { logJson, sessionJson, type LogFilter, type SessionStore } from './sessions.js';
import { filterParam } from '../audit/routes.js';
import { withoutPasswordAdmin } from '../sso/config.js';

const PROOFS = ['device', 'oidc', 'manual'] as const;
import type { TrustStore } from './trusts.js';

export interface SessionRouteParts {
  ctx: CoreContext;
  deps: PublishingDeps;
  devices: DeviceStore;
  sessions: SessionStore;
  nonces: NonceStore;
  trusts: TrustStore;
}

/** The exact bytes a device signs (SPEC "Versioning": the fixed label `service publish v1`). */
export const signedMessage = (nonce: string, deviceId: string, repo: string) =>
  new TextEncoder().encode(`service publish v1\n${nonce}\n${deviceId}\n${repo}`);

/** `/api/publish/...` except trust policies: challenge, the three ways to open a session, listing, closing, the log. */
export function sessionRoutes({ ctx, deps, devices, sessions, nonces, trusts }: SessionRouteParts): Hono<TroveEnv> {
  const app = new Hono<TroveEnv>();

  /** A failed proof: 401, counted per IP by the `deps.failures.limit` attempt it runs in. */
  const refuse = (_c: Context<TroveEnv>, message: string) => unauthorized(message, false);

  const repoFor = (name: string): RepoRow => {
    const repo = ctx.repos.byName(name);
    if (!repo) throw notFound(`repository ${name} not found`);
    return repo;
  };

  /**
   * Device and manual sessions: the user must hold write on the repo now (and again on every write,
   * with the grant's user from `SessionStore.verify`). A device's owner is read from the store with
   * the admin flag; a local admin's device was approved with the password, so while
   * `admin_password_login` is off it writes only where the account holds write itself.
   */
  const requireWriter = (stored: UserRow, repo: RepoRow) => {
    const user = withoutPasswordAdmin((k) => ctx.settings.get(k), stored);
    const level = ctx.access.userLevel({ type: 'user', via: 'password', user }, repo);
    if (level !== 'write') throw forbidden(`user ${user.username} does not hold write permission on ${repo.name}`);
  };

  app.post('/publish/challenge', async (c) => {
    const deviceId = reqString(await body(ctx, c), 'device_id', 64);
    const device = devices.usable(deviceId);
    if (!device) throw notFound('unknown, revoked or expired device; enroll again');
    // The device's own record rides along, so a client holding only its id (`trove status`)
    // learns its name and expiry; nothing here is secret to whoever knows the random id.
    return c.json({ nonce: nonces.issue(deviceId), ...ownRecord(device, devices) });
  });

  app.post('/publish/sessions', async (c) => {
    deps.failures.check([ipKey(c)]);
    const b = await body(ctx, c);
    return deps.failures.limit([ipKey(c)], async () => {
      const deviceId = reqString(b, 'device_id', 64);
      const repoName = reqString(b, 'repo', 64);
      const nonce = reqString(b, 'nonce', 128);
      const signature = reqString(b, 'signature', 128);
      // The nonce is spent by this attempt whatever follows: one signature try per nonce.
      if (!nonces.take(deviceId, nonce)) throw refuse(c, 'unknown, used or expired nonce; ask /api/publish/challenge again');
      const device = devices.usable(deviceId);
      if (!device) throw refuse(c, 'unknown, revoked or expired device');
      const sig = fromBase64url(signature);
      const key = fromBase64url(device.publicKey);
      let ok = false;
      if (sig && sig.length === 64 && key) {
        try {
          ok = await verifyAsync(sig, signedMessage(nonce, deviceId, repoName), key, { zip215: false });
        } catch {
          ok = false;
        }
      }
      if (!ok) throw refuse(c, 'signature does not verify');
      // Re-read after the await: a revocation that landed meanwhile must win.
      if (!devices.usable(deviceId)) throw refuse(c, 'unknown, revoked or expired device');
      const user = ctx.users.byId(device.userId);
      if (!user || user.disabled) throw refuse(c, 'the device owner cannot sign in');
      requirePublisher(user, deps.proof);
      const repo = repoFor(repoName);
      requireWriter(user, repo);
      devices.touch(device.id);
      const created = sessions.create({
        repo: repo.name,
        format: repo.format,
        proof: 'device',
        user,
        actor: user.username,
        device: { id: device.id, name: device.name },
        notAfter: devices.expiresAt(device).getTime(),
      });
      return c.json(created, 201);
    });
  });

  app.post('/publish/sessions/oidc', async (c) => {
    deps.failures.check([ipKey(c)]);
    const b = await body(ctx, c);
    const token = reqString(b, 'token', 16 * 1024);
    const repoName = reqString(b, 'repo', 64);
    // Taken before the (possibly remote) key set check, so parallel guesses cannot all pass; only a
    // token that does not verify (401) keeps it. A verified token no policy allows (403) is no failed
    // attempt (SPEC "Limits"): its claims are what the issuer signed for the caller's own identity,
    // and the 403 names no policy and no claim, so retrying learns nothing a guess could use. Counting it
    // in this per-address bucket let one misconfigured job on a shared runner or NAT lock every user
    // and CI job behind that address out (429 for Basic reads and sign-ins too). The reason is logged.
    const denied = (why: string) => ctx.log.info({ repo: repoName, why }, 'CI identity token refused');
    const match = await deps.failures.limit([ipKey(c)], () => matchCiToken(trusts, token, repoName, denied));
    const repo = repoFor(repoName);
    // Verification awaited (remote key sets): if the policy changed meanwhile, its
    // sessions were just closed, so do not open one under the old terms.
    if (!trusts.unchanged(match.trust)) throw unauthorized('the trust policy changed while the token was checked; try again', false);
    const created = sessions.create({
      repo: repo.name,
      format: repo.format,
      proof: 'oidc',
      user: null,
      actor: match.actor,
      trust: { id: match.trust.id, name: match.trust.name },
      claims: match.claims,
    });
    return c.json(created, 201);
  });

  app.post('/publish/sessions/manual', async (c) => {
    const { user } = requireSessionUser(c);
    requirePublisher(user, deps.proof);
    const b = await body(ctx, c);
    const repo = repoFor(reqString(b, 'repo', 64));
    requireWriter(user, repo);
    await freshProof(deps.proof, user, b, ipOf(c)); // 401 wrong, 429 limited (counted by the verifier)
    return c.json(sessions.create({ repo: repo.name, format: repo.format, proof: 'manual', user, actor: user.username }), 201);
  });

  app.get('/publish/sessions', (c) => {
    const { user } = requireSessionUser(c);
    const res = sessions.page({ userId: user.id, ...listQuery(c, isCursor) });
    return c.json(page(res.items.map(sessionJson), res.last));
  });

  app.delete('/publish/sessions/:id', (c) => {
    const cred = c.get('credential');
    if (cred.type === 'anonymous') throw unauthorized('send the session token as Basic password or Bearer token', false);
    if (cred.type !== 'publish' || cred.grant.sessionId !== c.req.param('id')) {
      throw forbidden('a publish session can be closed only with its own token');
    }
    sessions.close(cred.grant.sessionId, 'closed');
    return c.body(null, 204);
  });

  app.get('/publish/log', (c) => {
    requireAdmin(c);
    // `proof` is the log's "action": how the session was opened.
    const proof = filterParam(c.req.query('proof'), 'proof');
    if (proof && !PROOFS.includes(proof as never)) throw badRequest(`proof must be one of ${PROOFS.join(', ')}`);
    const res = sessions.page({
      ...listQuery(c, isCursor),
      actor: filterParam(c.req.query('actor'), 'actor'),
      proof: (proof || undefined) as LogFilter['proof'],
      repo: filterParam(c.req.query('repo'), 'repo'),
    });
    const names = new Map<string, string | null>();
    const nameOf = (id: string | null) => {
      if (!id) return null;
      if (!names.has(id)) names.set(id, ctx.users.byId(id)?.username ?? null);
      return names.get(id)!;
    };
    return c.json(page(res.items.map((r) => logJson(r, nameOf(r.userId))), res.last));
  });

  return app;
}
