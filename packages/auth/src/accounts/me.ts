import { userJson, type UserRow } from '@trove/core';
import type { SecondFactors } from '../second-factor/index.js';

/** The user object of `/api/me`, the users API and sign-in answers. */
export const meJson = (u: UserRow, factors: Pick<SecondFactors, 'hasSecondFactor'>) => ({
  ...userJson(u),
  // Local accounts need a second factor before they can publish (SPEC "Authentication" rule 4).
  second_factor_required: u.kind === 'local' && !factors.hasSecondFactor(u.id),
});
