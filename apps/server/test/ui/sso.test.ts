import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { screenshot, uiSuite } from './harness.js';

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
});
