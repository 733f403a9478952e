import type { MiddlewareHandler } from 'hono';
import type { CredentialResolver } from '../access/credential.js';
import type { TroveEnv } from './env.js';

/** Resolves the caller once per request and stores it as `credential`. */
export function credentials(opts: { resolver: () => CredentialResolver; surface: 'api' | 'format' }): MiddlewareHandler<TroveEnv> {
  return async function credentialsMiddleware(c, next) {
    const cred = await opts.resolver().resolve({
      authorization: c.req.header('authorization'),
      cookie: opts.surface === 'api' ? c.req.header('cookie') : undefined,
      ip: c.get('clientIp') ?? '0.0.0.0',
      surface: opts.surface,
    });
    c.set('credential', cred);
    await next();
  };
}
