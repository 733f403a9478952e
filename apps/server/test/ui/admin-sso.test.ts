import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as jose from 'jose';
// @ts-expect-error oidc-provider ships no types; installed at the workspace root for tests.
import Provider from 'oidc-provider';
import { describe, expect, it } from 'vitest';
import { ADMIN, adminSession, api, screenshot, signInWithTotp, uiSuite, useSession } from './harness.js';

const server = uiSuite();

/** A real OpenID Connect provider (oidc-provider, in this process) with one confidential client: enough for discovery. */
async function startProvider(): Promise<{ issuer: string; close(): Promise<void> }> {
  const srv = http.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const issuer = `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;
  const { privateKey } = await jose.generateKeyPair('RS256', { extractable: true });
  const provider = new Provider(issuer, {
    clients: [{ client_id: 'trove', client_secret: 'provider-secret-1', redirect_uris: [`${server.base}/api/auth/oidc/callback`], grant_types: ['authorization_code'], response_types: ['code'] }],
    jwks: { keys: [{ ...(await jose.exportJWK(privateKey)), kid: 'k1', alg: 'RS256', use: 'sig' }] },
    cookies: { keys: [crypto.randomBytes(16).toString('hex')] },
  });
  srv.on('request', provider.callback());
  return {
    issuer,
    close: () =>
      new Promise<void>((r) => {
        srv.closeAllConnections();
        srv.close(() => r());
      }),
  };
}

const issuerSetting = async () =>
  (await api<{ groups: { settings: { key: string; value: unknown }[] }[] }>(server.base, 'GET', '/api/settings')).groups.flatMap((g) => g.settings).find((s) => s.key === 'oidc.issuer')!.value;

describe('single sign-on settings in the console', () => {
  it('tests discovery before saving, and shows a failed discovery beside the issuer with nothing saved', async () => {
    const provider = await startProvider();
    try {
      const admin = await adminSession(server.base);
      const browser = await server.browser();
      await useSession(browser.context, server.base, admin);
      const page = await browser.context.newPage();
      await page.goto(`${server.base}/#/admin/settings?group=sso`);
      await page.getByLabel('Issuer URL').fill(provider.issuer);
      await page.getByLabel('Client ID').fill('trove');
      await page.getByRole('button', { name: 'Set client secret' }).click();
      await page.getByLabel('Client secret').fill('provider-secret-1');
      await page.getByLabel('Admin claim values').fill('admins');
      await page.getByRole('button', { name: 'Test discovery' }).click();
      await expect(page.getByTestId('connection-test').textContent()).resolves.toBe('Test discovery: it works.');

      // an issuer that does not answer: the test says why, and a save is refused beside the field
      await page.getByLabel('Issuer URL').fill('http://127.0.0.1:9');
      await page.getByRole('button', { name: 'Test discovery' }).click();
      await expect(page.getByTestId('connection-test').textContent()).resolves.toMatch(/^Test discovery failed: ./);
      await page.getByRole('button', { name: /^Save \d changes$/ }).click();
      await expect(page.locator('[data-key="oidc.issuer"]').getByRole('alert').textContent()).resolves.toMatch(/./);
      expect(await issuerSetting()).toBe('');
      await screenshot(page, 'settings-sso');

      await page.getByLabel('Issuer URL').fill(provider.issuer);
      await page.getByRole('button', { name: /^Save \d changes$/ }).click();
      await page.getByText(/^Saved \d changes\./).waitFor();
      expect(await issuerSetting()).toBe(provider.issuer);
      expect(await page.content()).not.toContain('provider-secret-1');
    } finally {
      await provider.close();
    }
  }, 90_000);
});
