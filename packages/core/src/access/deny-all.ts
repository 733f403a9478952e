import { unauthorized } from '../errors.js';
import { ANONYMOUS, type CredentialResolver } from './credential.js';

/** The resolver before accounts exist: anonymous callers only, any presented credential is refused. */
export const denyAllResolver: CredentialResolver = {
  async resolve(req) {
    if (req.authorization) throw unauthorized('invalid credentials', req.surface === 'format');
    return ANONYMOUS;
  },
};
