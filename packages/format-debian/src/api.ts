import { Hono } from 'hono';
import { conflict, readJsonObject, requireAdmin, badRequest, type FormatContext, type TroveEnv } from '@trove/core';
import { debianState } from './state.js';

/** `GET/POST /api/settings/signing-key` (admin only). */
export function debianApiRoutes(ctx: FormatContext) {
  const app = new Hono<TroveEnv>();
  const keys = () => debianState(ctx).keys;
  const answer = (k: { publicArmored: string; fingerprint: string }) => ({ public_key: k.publicArmored, fingerprint: k.fingerprint });

  app.get('/settings/signing-key', async (c) => {
    requireAdmin(c);
    return c.json(answer(await keys().get()));
  });

  app.post('/settings/signing-key', async (c) => {
    requireAdmin(c);
    if (keys().fromFile()) throw conflict('the signing key comes from gpg.key_file; replace the file instead');
    const body = await readJsonObject(c, ctx.settings.int('max_json_bytes'));
    const armored = body.armored;
    if (armored !== undefined && armored !== null && typeof armored !== 'string') throw badRequest('armored must be a string');
    const key = await keys().replace(armored || undefined);
    // The fingerprint only: the key itself is a secret.
    ctx.audit.recordFor(c, { action: 'signing_key.replace', detail: { fingerprint: key.fingerprint, generated: !armored } });
    return c.json(answer(key));
  });

  return app;
}
