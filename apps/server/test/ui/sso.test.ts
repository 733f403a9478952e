import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminSession, api, basicAuth, deviceKey, screenshot, totpCode, uiSuite } from './harness.js';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
/** The vendored test provider: one confidential client, a "Sign in as X" page per user with --interactive. */
const PROVIDER = fileURLToPath(new URL('../../../../scripts/clients/oidc-provider.mjs', import.meta.url));

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/**
 * The provider has to know Trove's callback before Trove starts, and Trove its issuer: the
 * port is picked here, the provider started, then the server (uiSuite's hook, which runs after
 * this one) reads the environment filled in below.
 */
const env: Record<string, string> = {};
let idp: ChildProcess | undefined;
beforeAll(async () => {
  const port = await freePort();
  const base = `http://localhost:${port}`;
  idp = spawn(process.execPath, [PROVIDER, '--client-id', 'trove', '--client-secret', 'ui-sso-secret', '--redirect-uri', `${base}/api/auth/oidc/callback`, '--interactive'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const issuer = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`provider did not start: ${out}`)), 15_000);
    idp!.stdout!.on('data', (d) => {
      out += d;
      const line = out.split('\n').find((l) => l.startsWith('{"ready":true'));
      if (line) {
        clearTimeout(timer);
        resolve(JSON.parse(line).issuer);
      }
    });
    idp!.once('exit', (code) => reject(new Error(`provider exited with ${code}`)));
  });
  Object.assign(env, {
    TR_LISTEN: `127.0.0.1:${port}`,
    TR_BASE_URL: base,
    TR_OIDC_ISSUER: issuer,
    TR_OIDC_CLIENT_ID: 'trove',
    TR_OIDC_CLIENT_SECRET: 'ui-sso-secret',
    TR_OIDC_SCOPES: 'openid profile email groups',
    TR_OIDC_ADMIN_VALUES: 'admins',
  });
});
afterAll(() => {
  idp?.kill('SIGTERM');
});

// uiSuite's own `base` names the port it picked; TR_LISTEN above overrides that, so tests use TR_BASE_URL.
const server = uiSuite(env);

describe('SSO in the browser', () => {
  it('goes from the sign-in page through the provider to a signed-in admin', async () => {
    const browser = await server.browser();
    const page = await browser.context.newPage();
    await page.goto(`${env.TR_BASE_URL}/#/login`);
    const sso = page.getByRole('link', { name: 'Sign in with SSO' });
    await sso.waitFor();
    await screenshot(page, 'sign-in-sso');
    await sso.click();
    // The provider's own page: pick the admin.
    await page.click('button[value="alice"]');
    await page.getByRole('heading', { name: 'Repositories', level: 1 }).waitFor();
    await page.locator('.who .user', { hasText: 'alice' }).waitFor();
    await page.locator('.who .badge', { hasText: 'admin' }).waitFor();
    await page.getByRole('link', { name: 'Users' }).click();
    await page.locator('.badge', { hasText: 'SSO' }).first().waitFor();
    // SSO users have no second factor, tokens or publishing pages.
    await expect(page.getByRole('link', { name: 'Security' }).count()).resolves.toBe(0);
    await expect(page.getByRole('link', { name: 'Tokens' }).count()).resolves.toBe(0);
  }, 60_000);

  it('shows a refused sign-in in words', async () => {
    const browser = await server.browser();
    const page = await browser.context.newPage();
    await page.goto(`${env.TR_BASE_URL}/#/login`);
    await page.getByRole('link', { name: 'Sign in with SSO' }).click();
    await page.click('button[value="bob"]');
    await page.getByText('Your single sign-on account is not allowed here.').waitFor();
    expect(page.url()).toContain('#/login?error=not_authorized');
  }, 60_000);

  /** A fresh browser signed in as the SSO admin alice. */
  async function ssoAdminPage() {
    const browser = await server.browser();
    const page = await browser.context.newPage();
    await page.goto(`${env.TR_BASE_URL}/#/login`);
    await page.getByRole('link', { name: 'Sign in with SSO' }).click();
    await page.click('button[value="alice"]');
    await page.locator('.who .user', { hasText: 'alice' }).waitFor();
    return page;
  }

  it('tells an SSO admin on a private file page how downloads work without a read-token link', async () => {
    // A private repository with one file, uploaded by the local bootstrap admin.
    const base = env.TR_BASE_URL!;
    const admin = await adminSession(base);
    await api(base, 'POST', '/api/repos', { name: 'private-files', format: 'raw', anonymous_read: false });
    const session = await api<{ token: string }>(base, 'POST', '/api/publish/sessions/manual', { repo: 'private-files', totp_code: totpCode(admin.secret) }, { Cookie: admin.cookie });
    const put = await fetch(`${base}/raw/private-files/notes/a.txt`, { method: 'PUT', body: 'secret notes', headers: { Authorization: basicAuth('ci', session.token) } });
    expect(put.status).toBe(201);

    const page = await ssoAdminPage();
    await page.goto(`${base}/#/repos/private-files?file=notes/a.txt`);
    await page.getByRole('link', { name: 'Download' }).waitFor();
    const hint = (await page.locator('p.hint').textContent()) ?? '';
    // Format routes take HTTP Basic only, and an SSO account has neither a password nor a read token.
    expect(hint).not.toMatch(/your password or a read token/);
    expect(hint).toMatch(/single sign-on account has neither/i);
    await expect(page.locator('a[href="#/tokens"]').count()).resolves.toBe(0);
  }, 60_000);

  it('shows an SSO admin a sentence instead of the read-token form, which would always be refused', async () => {
    const page = await ssoAdminPage();
    await page.goto(`${env.TR_BASE_URL}/#/tokens`);
    await page.getByRole('heading', { name: 'Read tokens', level: 1 }).waitFor();
    await page.getByText('Single sign-on accounts have no read tokens').waitFor({ timeout: 5_000 });
    await page.waitForLoadState('networkidle');
    await expect(page.getByRole('button', { name: 'Create token' }).count()).resolves.toBe(0);
  }, 60_000);

  it('shows an SSO admin a sentence instead of second-factor forms on the security page', async () => {
    const page = await ssoAdminPage();
    await page.goto(`${env.TR_BASE_URL}/#/security`);
    await page.getByRole('heading', { name: 'Security', level: 1 }).waitFor();
    await page.getByText('Single sign-on accounts have no password or second factor in Trove').waitFor({ timeout: 5_000 });
    await page.waitForLoadState('networkidle');
    // Adding one is always 403 for them.
    await expect(page.getByRole('button', { name: 'Add an authenticator app' }).count()).resolves.toBe(0);
    await expect(page.getByRole('button', { name: 'Add a passkey' }).count()).resolves.toBe(0);
  }, 60_000);

  it('opens a device verification URL for an SSO admin without the approval and manual-session forms', async () => {
    const base = env.TR_BASE_URL!;
    const enroll = await api<{ verification_url: string }>(base, 'POST', '/api/devices/enroll', { name: 'alice-laptop', kind: 'gradle', public_key: deviceKey().publicKey }, {});
    const page = await ssoAdminPage();
    await page.goto(enroll.verification_url);
    await page.getByRole('heading', { name: 'Publishing', level: 1 }).waitFor();
    await page.getByText('Single sign-on accounts cannot approve devices').waitFor({ timeout: 5_000 });
    await page.waitForLoadState('networkidle');
    await expect(page.getByLabel('Device code').count()).resolves.toBe(0);
    await expect(page.getByRole('heading', { name: 'Start a publish session' }).count()).resolves.toBe(0);
    await expect(page.locator('a[href="#/security"]').count()).resolves.toBe(0); // "set one up on the security page"
    await expect(page.getByRole('alert').count()).resolves.toBe(0);
  }, 60_000);
});
