import { defineSettings } from '@trove/core';

const HOUR = 3_600_000;

export const sessionSettings = defineSettings({
  name: 'sessions',
  label: 'Sign-in',
  settings: [
    { key: 'cookie.secure', type: 'bool', default: true, label: 'Secure cookie', help: 'Send the session cookie only over HTTPS. Turn off only for plain-HTTP test setups.' },
    { key: 'session_ttl', type: 'duration', default: '168h', label: 'Sign-in lifetime', help: 'Absolute lifetime of a UI sign-in. At most 8760h (a year).', min: 60_000, max: 8760 * HOUR },
    { key: 'admin_password_login', type: 'bool', default: true, label: 'Admin password sign-in', help: 'When off, local admins cannot sign in to the UI with a password (publishers still can). Needs SSO.' },
  ],
  validate(get): Record<string, string> {
    // Locking local admins out without SSO would leave nobody able to administer the server.
    return get('admin_password_login') === false && get('oidc.issuer') === ''
      ? { admin_password_login: 'can be turned off only when SSO is configured (oidc.issuer)' }
      : {};
  },
});

export const publishSettings = defineSettings({
  name: 'publishing',
  label: 'Publishing',
  settings: [
    { key: 'publish.session_ttl', type: 'duration', default: '15m', label: 'Publish session lifetime', help: 'Longest life of a publish session. At most 1h.', min: 1000, max: HOUR },
    { key: 'publish.device_ttl', type: 'duration', default: '2160h', label: 'Device key validity', help: 'How long an enrolled device key can start publish sessions.', min: 60_000 },
  ],
});

export const ssoSettings = defineSettings({
  name: 'sso',
  label: 'Single sign-on (OpenID Connect)',
  settings: [
    { key: 'oidc.issuer', type: 'string', default: '', label: 'Issuer URL', help: 'Issuer of the identity provider. SSO is on when set. Only whitespace is trimmed: a trailing slash must match the provider.' },
    { key: 'oidc.client_id', type: 'string', default: '', label: 'Client ID', help: 'Confidential client ID.' },
    { key: 'oidc.client_secret', type: 'string', default: '', secret: true, sentTo: 'oidc.issuer', label: 'Client secret', help: 'Client secret. Stored encrypted. Asked for again when the issuer changes.' },
    { key: 'oidc.redirect_url', type: 'string', default: '', label: 'Redirect URL', help: 'Callback URL; empty means base_url + /api/auth/oidc/callback.' },
    { key: 'oidc.scopes', type: 'string', default: 'openid profile email', label: 'Scopes', help: 'Space-separated; openid is always included.' },
    { key: 'oidc.admin_claim', type: 'string', default: 'groups', label: 'Admin claim', help: 'ID token claim checked for admin rights; dotted paths allowed.' },
    { key: 'oidc.admin_values', type: 'list', default: [], label: 'Admin claim values', help: 'The admin claim must contain one of these.' },
    { key: 'oidc.admin_emails', type: 'list', default: [], label: 'Admin emails', help: 'Extra admin allowlist; matches only verified emails.' },
    { key: 'oidc.session_ttl', type: 'duration', default: '12h', label: 'SSO sign-in lifetime', help: 'Absolute lifetime of an SSO sign-in.', min: 60_000 },
  ],
  validate(get) {
    const errs: Record<string, string> = {};
    if (get('oidc.issuer') !== '') {
      if (!/^https?:\/\//.test(String(get('oidc.issuer')))) errs['oidc.issuer'] = 'must start with http:// or https://';
      else if (hasCredentials(String(get('oidc.issuer')))) errs['oidc.issuer'] = 'must not carry credentials (user:password@): the issuer is shown and sent with discovery';
      if (get('oidc.client_id') === '') errs['oidc.client_id'] = 'required when SSO is on';
      if (get('oidc.client_secret') === '') errs['oidc.client_secret'] = 'required when SSO is on';
      if ((get('oidc.admin_values') as string[]).length === 0 && (get('oidc.admin_emails') as string[]).length === 0) {
        errs['oidc.admin_values'] = 'set admin claim values or admin emails when SSO is on';
      }
      if (get('oidc.redirect_url') === '' && get('base_url') === '') errs['oidc.redirect_url'] = 'set a redirect URL or base_url when SSO is on';
    }
    return errs;
  },
});

function hasCredentials(url: string): boolean {
  try {
    const u = new URL(url);
    return u.username !== '' || u.password !== '';
  } catch {
    return false;
  }
}
