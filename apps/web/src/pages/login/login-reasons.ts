/** `#/login?error=<reason>` from the SSO callback (SPEC), in words. */
export const LOGIN_ERRORS: Record<string, string> = {
  not_authorized: 'Your single sign-on account is not allowed here. SSO is for administrators only; ask an admin to add you to the admin group.',
  username_conflict: 'Another account (a local one, or a different single sign-on identity) already uses the user name your identity provider sent, so single sign-on cannot take it over. Ask an admin to resolve the conflict.',
  invalid_username: 'Your identity provider sent a user name Trove cannot use (letters, digits, ".", "_", "@" or "-", at most 64 characters).',
  account_disabled: 'This account is disabled. Ask an admin to enable it again.',
  sso_failed: 'Single sign-on did not complete. Try again; if it keeps failing, an admin can check the SSO settings.',
  expired: 'Your sign-in expired. Sign in again.',
  rate_limited: 'Too many sign-in attempts from your network. Wait a minute, then try again.',
};

/** Anyone can send a link to `#/login?error=...`: a reason this page does not know is not shown as written. */
const UNKNOWN = 'Sign-in did not complete. Try again; if it keeps failing, ask an admin.';

export function loginError(reason: string | null): string {
  if (!reason) return '';
  return Object.hasOwn(LOGIN_ERRORS, reason) ? LOGIN_ERRORS[reason]! : UNKNOWN;
}
