import type { Context } from 'hono';
import { forbidden, requireUser, type TroveEnv } from '@trove/core';

/**
 * Second-factor management accepts only a UI session (SPEC): Basic auth (password or
 * read token) gets 403, so a leaked password or token cannot add or remove factors.
 */
export function requireUiSession(c: Context<TroveEnv>) {
  const cred = requireUser(c);
  if (cred.via !== 'session') throw forbidden('second-factor management needs a UI session; sign in through the web UI');
  return cred;
}
