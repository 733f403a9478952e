import { Hono, type Context } from 'hono';
import { badRequest, forbidden, notFound, readJsonObject, unauthorized, type CoreContext, type TroveEnv, type UserRow } from '@trove/core';
import { requireUiSession } from '../sessions/guards.js';
import type { UiSessionStore } from '../sessions/ui-sessions.js';
import type { SecondFactors } from './index.js';
import { passkeyJson } from './passkeys.js';
import { totpCode, totpJson } from './totp.js';

const name = (b: Record<string, unknown>, fallback: string): string => {
  if (b.name === undefined || b.name === null || b.name === '') return fallback;
  if (typeof b.name !== 'string' || b.name.length > 100) throw badRequest('name must be a string of at most 100 characters');
  return b.name.trim() || fallback;
};

/** `/api/security...`: the SPEC's second-factor management table. UI session only. */
export function securityRoutes(ctx: CoreContext, factors: SecondFactors, sessions: UiSessionStore): Hono<TroveEnv> {
  const app = new Hono<TroveEnv>();
  const body = (c: Context<TroveEnv>) => readJsonObject(c, ctx.settings.int('max_json_bytes'));

  /** A local account (SSO users have no second factor) signed in through the UI. */
  const owner = (c: Context<TroveEnv>) => {
    const cred = requireUiSession(c);
    if (cred.user.kind !== 'local') throw forbidden('SSO users have no second factor');
    return cred;
  };

  /**
   * The first factor proven on a setup-only session turns it into a full session; any other
   * setup-only session of the user ends (it proved the password only). A setup-only session
   * that ended while this request was in flight (another browser added a factor first) must
   * not leave its factor behind: `remove` takes it out again and the caller gets 401.
   * `first` (the user had no factor before this one, read before it was stored): recovery
   * codes that exist now were minted without any factor, by a password alone (a leaked one, or
   * an older server that allowed it), and would outlive the setup-only sessions ended here as
   * a way back in; they are discarded. A new set can be made on the now-full session.
   */
  const added = (c: Context<TroveEnv>, user: UserRow, first: boolean, action: string, target: string, remove: () => void) => {
    const cred = requireUiSession(c);
    if (cred.setupOnly && (!cred.credentialId || !sessions.upgrade(cred.credentialId))) {
      remove();
      throw unauthorized('this sign-in ended; sign in again', false);
    }
    sessions.endSetupOnly(user.id, cred.credentialId);
    if (first && factors.recovery.discard(user.id) > 0) {
      ctx.audit.recordFor(c, { action: 'recovery_codes.discard', target: user.username, detail: { reason: 'minted before the first second factor' } });
    }
    ctx.audit.recordFor(c, { action, target: user.username, detail: { id: target } });
  };

  app.get('/security', (c) => {
    const { user } = requireUiSession(c);
    return c.json({
      totp: factors.totp.list(user.id).map(totpJson),
      passkeys: factors.passkeys.list(user.id).map(passkeyJson),
      recovery_codes: factors.recovery.unused(user.id),
      second_factor: factors.hasSecondFactor(user.id),
    });
  });

  app.post('/security/totp/begin', async (c) => {
    const { user } = owner(c);
    return c.json(factors.totp.begin(user, name(await body(c), 'Authenticator app')));
  });

  app.post('/security/totp/confirm', async (c) => {
    const { user } = owner(c);
    const b = await body(c);
    if (typeof b.setup_id !== 'string' || !b.setup_id) throw badRequest('setup_id is required');
    const code = totpCode(b.code);
    if (code === undefined) throw badRequest('code is required: 6 digits, as a string or a number');
    const first = !factors.hasSecondFactor(user.id);
    const row = factors.totp.confirm(user, b.setup_id, code);
    added(c, user, first, 'totp.add', row.id, () => factors.totp.remove(user.id, row.id));
    return c.json(totpJson(row), 201);
  });

  app.delete('/security/totp/:id', (c) => {
    const { user } = owner(c);
    if (!factors.totp.remove(user.id, c.req.param('id'))) throw notFound('TOTP authenticator not found');
    ctx.audit.recordFor(c, { action: 'totp.delete', target: user.username, detail: { id: c.req.param('id') } });
    return c.body(null, 204);
  });

  app.post('/security/passkeys/begin', async (c) => {
    const { user } = owner(c);
    return c.json({ publicKey: await factors.passkeys.registrationOptions(user) });
  });

  app.post('/security/passkeys/finish', async (c) => {
    const { user } = owner(c);
    factors.passkeys.rp();
    const b = await body(c);
    // Read before the (awaited) registration: a factor added meanwhile elsewhere must not hide that this one came first.
    const first = !factors.hasSecondFactor(user.id);
    const row = await factors.passkeys.register(user, name(b, 'Passkey'), b.credential);
    added(c, user, first, 'passkey.add', row.id, () => factors.passkeys.remove(user.id, row.id));
    return c.json(passkeyJson(row), 201);
  });

  app.post('/security/passkeys/assert', async (c) => {
    const { user } = owner(c);
    factors.passkeys.rp();
    if (!factors.passkeys.list(user.id).length) throw notFound('no passkey registered');
    return c.json({ publicKey: await factors.passkeys.freshCheckOptions(user) });
  });

  app.delete('/security/passkeys/:id', (c) => {
    const { user } = owner(c);
    factors.passkeys.rp();
    if (!factors.passkeys.remove(user.id, c.req.param('id'))) throw notFound('passkey not found');
    ctx.audit.recordFor(c, { action: 'passkey.delete', target: user.username, detail: { id: c.req.param('id') } });
    return c.body(null, 204);
  });

  /**
   * Recovery codes are a way back in to an account that has a second factor, never a substitute
   * for one: minted by a password alone (a setup-only session) they would let whoever knew the
   * password in after the owner enrolls. So they need a factor first; the web UI offers them after
   * the first factor, on the session that factor just made full. Without any factor (all removed)
   * a full session gets the same answer: such codes could not sign in and would be discarded anyway.
   */
  app.post('/security/recovery-codes', (c) => {
    const { user, setupOnly } = owner(c);
    if (setupOnly || !factors.hasSecondFactor(user.id)) {
      throw forbidden('add an authenticator app or a passkey first; recovery codes come after a second factor', 'second_factor_required');
    }
    const codes = factors.recovery.replace(user.id);
    ctx.audit.recordFor(c, { action: 'recovery_codes.replace', target: user.username });
    return c.json({ codes }, 201);
  });

  return app;
}
