import { randomBytes } from 'node:crypto';
import type { CoreContext } from '@trove/core';
import { hashPassword } from './passwords.js';

/**
 * The first admin, only while there are no users: from the bootstrap variables, or
 * with a generated password printed once to stdout (never to the structured log).
 */
export async function bootstrapAdmin(
  ctx: CoreContext,
  given: { username: string; password: string } | null,
  print: (line: string) => void = (l) => process.stdout.write(l + '\n'),
): Promise<void> {
  if (ctx.users.count() > 0) return;
  const username = given?.username ?? 'admin';
  const password = given?.password ?? randomBytes(18).toString('base64url');
  ctx.users.create({ username, isAdmin: true, passwordHash: await hashPassword(password) });
  ctx.audit.record({ action: 'user.create', actor: '', target: username, detail: { is_admin: true, bootstrap: true } });
  if (!given) print(`trove: created admin user "${username}" with password ${password} (shown once; change it after signing in)`);
  ctx.log.info({ username }, 'created the first admin user');
}
