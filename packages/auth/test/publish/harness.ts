import * as ed from '@noble/ed25519';
import { defineModule, unauthorized, type CoreContext, type Credential, type CredentialResolver, type UserRow } from '@trove/core';
import { startTestServer, type TestServer } from '@trove/core/testing/server';
import { rawFormat } from '@trove/format-raw';
import { jsonCall, type Answer } from '../json-call.js';
import type { FreshProofVerifier, PublishingModule } from '../../src/contracts.js';
import { createPublishing, publishMigrations } from '../../src/publish/index.js';
import { FRESH_PROOF_ROUTES, PUBLISH_PATHS } from '../../src/index.js';
import { failedAttemptLimiter, type TokenBuckets } from '../../src/rate-limit/token-buckets.js';
import { publishSettings, sessionSettings, ssoSettings } from '../../src/settings.js';

/**
 * Test double for the accounts half (issue 3): users sign in with their user name as the
 * Basic password (`alice` = password, `alice@session` = UI session, `alice@read` = read
 * token), TOTP `123456` is the one valid fresh proof, and `trs_` tokens go through the real
 * publishing verifier exactly as the accounts resolver will call it.
 */
export const GOOD_TOTP = '123456';

export interface Harness {
  s: TestServer;
  ctx: CoreContext;
  publishing: PublishingModule;
  failures: TokenBuckets;
  secondFactor: Set<string>;
  user(name: string): UserRow;
  close(): Promise<void>;
}

function fakeProof(failures: TokenBuckets, secondFactor: Set<string>): FreshProofVerifier {
  return {
    async verify(user, proof, ip) {
      const keys = [`ip:${ip}`, `user:${user.username}`];
      failures.check(keys);
      if (proof.totp_code === GOOD_TOTP) return 'totp';
      if (proof.passkey && typeof proof.passkey === 'object' && (proof.passkey as { ok?: boolean }).ok) return 'passkey';
      failures.fail(keys);
      throw unauthorized('wrong second factor', false);
    },
    hasSecondFactor: (userId) => secondFactor.has(userId),
  };
}

export async function startHarness(opts: { env?: Record<string, string> } = {}): Promise<Harness> {
  const failures = failedAttemptLimiter();
  const secondFactor = new Set<string>();
  let publishing!: PublishingModule;
  // Publishing alone, with a fake second-factor check and a small resolver of its own: a module of the test.
  const publishingModule = defineModule({
    name: 'publishing',
    // The sign-in and SSO groups too: a local admin's device and manual sessions follow `admin_password_login`
    // (a sign-in setting that applies only while SSO is on), as in the real auth module.
    settings: [publishSettings, sessionSettings, ssoSettings],
    migrations: publishMigrations,
    create: async (ctx) => {
      for (const [name, admin] of [['alice', false], ['bob', false], ['root', true], ['sso', false]] as const) {
        const u = ctx.users.create({ username: name, isAdmin: admin, kind: name === 'sso' ? 'oidc' : 'local' });
        if (name !== 'sso') secondFactor.add(u.id);
      }
      await ctx.repos.create({ name: 'files', format: 'raw' });
      await ctx.repos.create({ name: 'other', format: 'raw' });
      ctx.permissions.set(ctx.repos.byName('files')!, 'alice', 'write');
      ctx.permissions.set(ctx.repos.byName('files')!, 'sso', 'write');
      ctx.permissions.set(ctx.repos.byName('other')!, 'alice', 'read');
      ctx.permissions.set(ctx.repos.byName('files')!, 'bob', 'read');
      publishing = createPublishing(ctx, { proof: fakeProof(failures, secondFactor), failures });
      const resolver: CredentialResolver = {
        async resolve(req): Promise<Credential> {
          // `tr_session=<name>@session` stands for a UI session cookie (docs snippets send one).
          const cookie = req.cookie ? /(?:^|;\s*)tr_session=([^;]+)/.exec(req.cookie)?.[1] : undefined;
          const h = req.authorization ?? (cookie ? 'Bearer ' + cookie : undefined);
          if (!h) return { type: 'anonymous' };
          let secret = '';
          const basic = /^Basic\s+(.+)$/i.exec(h);
          if (basic) {
            const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8');
            secret = decoded.slice(decoded.indexOf(':') + 1);
          } else {
            secret = /^Bearer\s+(.+)$/i.exec(h)?.[1] ?? '';
          }
          const keys = [`ip:${req.ip}`];
          failures.check(keys);
          if (secret.startsWith('trs_')) {
            const grant = await publishing.verifier.verify(secret);
            if (grant) return { type: 'publish', grant };
          } else {
            const [name, via] = secret.split('@') as [string, string | undefined];
            const user = ctx.users.byName(name);
            if (user && !user.disabled) {
              const v = via === 'session' ? 'session' : via === 'read' ? 'read_token' : 'password';
              return { type: 'user', via: v, user };
            }
          }
          failures.fail(keys);
          throw unauthorized('invalid credentials', req.surface === 'format');
        },
      };
      return { credentials: { resolver, publishPaths: PUBLISH_PATHS, freshProofRoutes: FRESH_PROOF_ROUTES }, apiRoutes: [publishing.routes], stop: () => publishing.stop() };
    },
  });
  const s = await startTestServer({ modules: [publishingModule, rawFormat], env: opts.env ?? {} });
  return {
    s,
    ctx: s.ctx,
    publishing,
    failures,
    secondFactor,
    user: (name) => s.ctx.users.byName(name)!,
    async close() {
      await s.close();
    },
  };
}

export const basicAuth = (password: string, user = 'x') => 'Basic ' + Buffer.from(`${user}:${password}`).toString('base64');

export interface Call {
  method?: string;
  body?: unknown;
  auth?: string;
  headers?: Record<string, string>;
}

/** JSON API call; `auth` is a Basic password unless it already starts with a scheme. */
export function call(h: Harness, path: string, opts: Call = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.auth) headers.authorization = /^(Basic|Bearer) /.test(opts.auth) ? opts.auth : basicAuth(opts.auth);
  return jsonCall(h.s.url + path, { ...opts, headers });
}

/** A raw PUT with the session token as the Basic password, as curl -u "ci:$TOKEN" -T sends it. */
export const rawPut = (h: Harness, repo: string, path: string, content: string, token?: string) =>
  fetch(`${h.s.url}/raw/${repo}/${path}`, { method: 'PUT', body: content, headers: token ? { authorization: basicAuth(token, 'ci') } : {} });

/** A device key pair, as a client would mint it. */
export async function deviceKey() {
  const secret = ed.utils.randomSecretKey();
  const pub = await ed.getPublicKeyAsync(secret);
  return {
    secret,
    publicKey: Buffer.from(pub).toString('base64url'),
    sign: async (msg: string) => Buffer.from(await ed.signAsync(new TextEncoder().encode(msg), secret)).toString('base64url'),
  };
}

/** Enrolls and approves a device for `user` (password `user@session`), returning its id and key. */
export async function enrolledDevice(h: Harness, user = 'alice', name = 'laptop') {
  const key = await deviceKey();
  const en = await call(h, '/api/devices/enroll', { body: { name, kind: 'gradle', public_key: key.publicKey } });
  if (en.status !== 200) throw new Error(`enroll: ${en.status} ${JSON.stringify(en.body)}`);
  const ap = await call(h, '/api/devices/approve', { auth: `${user}@session`, body: { user_code: en.body.user_code, totp_code: GOOD_TOTP } });
  if (ap.status !== 201) throw new Error(`approve: ${ap.status} ${JSON.stringify(ap.body)}`);
  const poll = await call(h, '/api/devices/enroll/poll', { body: { device_code: en.body.device_code } });
  if (poll.status !== 200) throw new Error(`poll: ${poll.status} ${JSON.stringify(poll.body)}`);
  return { id: poll.body.device_id as string, key };
}

/** Challenge + signature: what a Gradle or Maven plugin does before each publish. */
export async function deviceSession(h: Harness, dev: { id: string; key: Awaited<ReturnType<typeof deviceKey>> }, repo: string) {
  const ch = await call(h, '/api/publish/challenge', { body: { device_id: dev.id } });
  if (ch.status !== 200) return ch;
  const signature = await dev.key.sign(`service publish v1\n${ch.body.nonce}\n${dev.id}\n${repo}`);
  return call(h, '/api/publish/sessions', { body: { device_id: dev.id, repo, nonce: ch.body.nonce, signature } });
}
