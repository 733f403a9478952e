import * as jose from 'jose';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, adminSession, api, basicAuth, createRepo, screenshot, signInWithTotp, uiSuite, useSession, type SignedIn } from './harness.js';

// max_upload_bytes comes from the environment, so it must show read-only with its variable's name
const server = uiSuite({ TR_MAX_UPLOAD_BYTES: '1073741824' });
let admin: SignedIn;
beforeAll(async () => {
  admin = await adminSession(server.base);
  await createRepo(server.base, 'releases', 'raw');
  await createRepo(server.base, 'apt', 'debian');
});

type Item = { key: string; value: unknown; source: string };
const setting = async (key: string) =>
  (await api<{ groups: { settings: Item[] }[] }>(server.base, 'GET', '/api/settings')).groups.flatMap((g) => g.settings).find((s) => s.key === key)!;

/** A signed-in admin's page that records any request leaving the machine. */
async function adminPage(viewport?: { width: number; height: number }): Promise<{ page: Page; elsewhere: string[] }> {
  const browser = await server.browser(viewport);
  await useSession(browser.context, server.base, admin);
  const page = await browser.context.newPage();
  const elsewhere: string[] = [];
  page.on('request', (r) => {
    if (!r.url().startsWith(`${server.base}/`) && !/^(data|blob):/.test(r.url())) elsewhere.push(r.url());
  });
  return { page, elsewhere };
}

describe('the administrator console in the browser', () => {
  it('changes a setting that applies at once, shows the server\'s reason beside a bad value, and resets to the default', async () => {
    const { page, elsewhere } = await adminPage();
    await page.goto(`${server.base}/#/admin/settings?group=limits`);
    const json = page.locator('[data-key="max_json_bytes"]');
    await json.getByText('default', { exact: true }).waitFor();
    await json.getByLabel('Largest JSON body').fill('2048');
    await page.getByRole('button', { name: 'Save 1 change' }).click();
    await page.getByText('Saved 1 change.').waitFor();
    await json.getByText('saved', { exact: true }).waitFor();
    expect(await setting('max_json_bytes')).toMatchObject({ value: 2048, source: 'db' });
    // applied without a restart: a JSON body over 2 KiB is refused now
    const big = await fetch(`${server.base}/api/publish/trusts`, { method: 'POST', headers: { Cookie: admin.cookie, 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'x'.repeat(3000) }) });
    expect(big.status).toBe(413);
    await screenshot(page, 'settings');

    // a value the server refuses: its message beside the field, nothing saved
    await page.goto(`${server.base}/#/admin/settings?group=storage`);
    const ttl = page.locator('[data-key="presign_ttl"]');
    await ttl.getByLabel('Presigned URL lifetime').fill('1d');
    await page.getByRole('button', { name: 'Save 1 change' }).click();
    await expect(ttl.getByRole('alert').textContent()).resolves.toMatch(/duration|unit|invalid/i);
    await expect(page.getByRole('alert').filter({ hasText: 'see the marked fields' }).count()).resolves.toBe(1);
    expect(await setting('presign_ttl')).toMatchObject({ value: '5m', source: 'default' });
    await screenshot(page, 'settings-field-error');

    await page.goto(`${server.base}/#/admin/settings?group=limits`);
    await json.getByRole('button', { name: 'Reset Largest JSON body to its default' }).click();
    await page.getByRole('button', { name: 'Save 1 change' }).click();
    await page.getByText('Saved 1 change.').waitFor();
    expect(await setting('max_json_bytes')).toMatchObject({ value: 1048576, source: 'default' });
    expect(elsewhere).toEqual([]);
  }, 60_000);

  it('shows environment-set keys read-only with the variable to change', async () => {
    const { page } = await adminPage();
    await page.goto(`${server.base}/#/admin/settings?group=limits`);
    const upload = page.locator('[data-key="max_upload_bytes"]');
    await upload.getByText('environment', { exact: true }).waitFor();
    await expect(upload.getByText('TR_MAX_UPLOAD_BYTES').count()).resolves.toBe(1);
    const input = upload.getByLabel('Largest upload');
    await expect(input.inputValue()).resolves.toBe('1073741824');
    await expect(input.getAttribute('readonly')).resolves.not.toBeNull();
    await screenshot(page, 'settings-env-locked');
    // base_url comes from TR_BASE_URL in this test server
    await page.goto(`${server.base}/#/admin/settings`); // the first group: General
    await expect(page.locator('[data-key="base_url"]').getByText('TR_BASE_URL').count()).resolves.toBe(1);
  }, 60_000);

  it('replaces a secret without ever showing it, then clears it', async () => {
    const { page } = await adminPage();
    const secret = 'not-for-your-eyes-7f3a9c';
    await page.goto(`${server.base}/#/admin/settings?group=storage`);
    const field = page.locator('[data-key="s3.secret_access_key"]');
    await expect(field.getByTestId('secret-state-s3.secret_access_key').textContent()).resolves.toBe('Not set.');
    await field.getByRole('button', { name: 'Set s3 secret access key' }).click();
    await field.getByLabel('S3 secret access key').fill(secret);
    await expect(field.getByLabel('S3 secret access key').getAttribute('type')).resolves.toBe('password');
    await page.getByRole('button', { name: 'Save 1 change' }).click();
    await page.getByText('Saved 1 change.').waitFor();
    await expect(field.getByTestId('secret-state-s3.secret_access_key').textContent()).resolves.toBe('Set (the value is never shown).');
    expect(await setting('s3.secret_access_key')).toMatchObject({ value: { set: true }, source: 'db' });
    await page.reload();
    await field.getByRole('button', { name: 'Replace s3 secret access key' }).waitFor();
    expect(await page.content()).not.toContain(secret);
    await screenshot(page, 'settings-storage');

    await field.getByRole('button', { name: 'Clear s3 secret access key' }).click();
    await expect(field.getByTestId('secret-state-s3.secret_access_key').textContent()).resolves.toBe('Will be cleared on save.');
    await page.getByRole('button', { name: 'Save 1 change' }).click();
    await page.getByText('Saved 1 change.').waitFor();
    expect(await setting('s3.secret_access_key')).toMatchObject({ value: { set: false } });
  }, 60_000);

  it('rotates the signing key after a confirmation, and refuses an upload that is not a key', async () => {
    const before = (await api<{ fingerprint: string }>(server.base, 'GET', '/api/settings/signing-key')).fingerprint;
    const { page } = await adminPage();
    await page.goto(`${server.base}/#/admin/signing-key`);
    await expect(page.getByTestId('fingerprint').textContent()).resolves.toBe(before);
    const deb822 = page.getByRole('figure').filter({ hasText: 'trove.sources' }).locator('pre');
    await expect(deb822.textContent()).resolves.toContain(`URIs: ${server.base}/debian/apt\nSuites: stable\nComponents: main\nSigned-By: /etc/apt/keyrings/trove.asc`);
    await page.getByRole('button', { name: 'Generate a new key' }).click();
    await page.getByRole('button', { name: 'Replace the key with a new one' }).click();
    await page.getByText(/A new key was generated\. New fingerprint/).waitFor({ timeout: 30_000 });
    const after = (await api<{ fingerprint: string }>(server.base, 'GET', '/api/settings/signing-key')).fingerprint;
    expect(after).not.toBe(before);
    await expect(page.getByTestId('fingerprint').textContent()).resolves.toBe(after);
    await screenshot(page, 'signing-key');

    await page.getByLabel('Armored private key').fill('-----BEGIN PGP PRIVATE KEY BLOCK-----\nnot a key\n-----END PGP PRIVATE KEY BLOCK-----');
    await page.getByRole('button', { name: 'Upload this key' }).click();
    await page.getByRole('button', { name: 'Replace the key with the uploaded one' }).click();
    await page.getByRole('alert').filter({ hasText: /./ }).waitFor();
    expect((await api<{ fingerprint: string }>(server.base, 'GET', '/api/settings/signing-key')).fingerprint).toBe(after);
  }, 60_000);

  it('creates a trust policy with CI snippets, and a CI token it matches publishes', async () => {
    const { privateKey, publicKey } = await jose.generateKeyPair('RS256');
    const jwks = JSON.stringify({ keys: [{ ...(await jose.exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' }] });
    const issuer = 'https://ci.example.test';
    const { page, elsewhere } = await adminPage();
    await page.goto(`${server.base}/#/admin/trusts`);
    await page.getByText('No trust policies yet.').waitFor();
    await page.getByRole('link', { name: 'New policy' }).click();
    await page.getByLabel('Name', { exact: true }).fill('widgets-release');
    await page.getByLabel('Issuer').fill(issuer);
    await expect(page.getByLabel('Audience').inputValue()).resolves.toBe(server.base); // the CLI's default audience
    await page.getByLabel('Claim 1 name').fill('repository');
    await page.getByLabel('Claim 1 allowed values').fill('acme/widgets, acme/tools');
    await page.getByRole('button', { name: 'Add a claim' }).click();
    await page.getByLabel('Claim 2 name').fill('ref');
    await page.getByLabel('Claim 2 allowed values').fill('refs/heads/main');
    await page.getByLabel('Key set (JWKS)').fill(jwks);
    await page.getByLabel('releases (raw)').check();
    await screenshot(page, 'trust-create');
    await page.getByRole('button', { name: 'Create policy' }).click();
    await page.getByText('Policy created.').waitFor();
    const github = page.getByRole('figure').filter({ hasText: 'GitHub Actions' }).locator('pre');
    await expect(github.textContent()).resolves.toContain(`npm install -g ${server.base}/downloads/trove-cli.tgz`);
    await expect(github.textContent()).resolves.toContain('trove upload releases dist/app.tar.gz --oidc');
    await screenshot(page, 'trust-policy');

    const policies = await api<{ items: { name: string; claims: unknown; repos: string[] }[] }>(server.base, 'GET', '/api/publish/trusts');
    expect(policies.items).toEqual([expect.objectContaining({ name: 'widgets-release', claims: { repository: ['acme/widgets', 'acme/tools'], ref: ['refs/heads/main'] }, repos: ['releases'] })]);

    // a CI job's identity token, as GitHub would mint it, opens a session and uploads
    const mint = (claims: Record<string, string>) =>
      new jose.SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'k1' }).setIssuer(issuer).setAudience(server.base).setSubject('repo:acme/widgets:ref:refs/heads/main').setIssuedAt().setExpirationTime('5m').sign(privateKey);
    const ok = await fetch(`${server.base}/api/publish/sessions/oidc`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ token: await mint({ repository: 'acme/widgets', ref: 'refs/heads/main' }), repo: 'releases' }) });
    expect(ok.status).toBe(201);
    const { token } = (await ok.json()) as { token: string };
    expect((await fetch(`${server.base}/raw/releases/ci/app.tar.gz`, { method: 'PUT', body: 'built by CI', headers: { Authorization: basicAuth('ci', token) } })).status).toBe(201);
    const refused = await fetch(`${server.base}/api/publish/sessions/oidc`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ token: await mint({ repository: 'evil/fork', ref: 'refs/heads/main' }), repo: 'releases' }) });
    expect(refused.status).toBe(403); // a valid token that no policy trusts for this repository

    // the list, then delete behind a confirmation
    await api(server.base, 'POST', '/api/publish/trusts', { name: 'old-gitlab', issuer: 'https://gitlab.example', audience: 'trove', claims: { project_path: ['acme/x'] }, jwks, repos: ['apt'], disabled: true });
    await page.goto(`${server.base}/#/admin/trusts`);
    const rows = page.locator('tbody tr');
    await expect.poll(() => rows.locator('td:first-child').allTextContents()).toEqual(['old-gitlab', 'widgets-release']);
    await screenshot(page, 'trusts');
    await rows.filter({ hasText: 'old-gitlab' }).getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('button', { name: 'Delete old-gitlab' }).click();
    await page.getByText('Policy old-gitlab deleted').waitFor();
    await expect.poll(() => rows.count()).toBe(1);
    expect(elsewhere).toEqual([]);
  }, 60_000);

  it('shows those actions in the audit log with client IPs, filtered server-side, and the CI session in the publish log', async () => {
    const { page } = await adminPage();
    await page.goto(`${server.base}/#/admin/audit`);
    const actions = () => page.locator('tbody tr td:nth-child(3)').allTextContents();
    await page.locator('tbody tr').first().waitFor();
    const all = await actions();
    for (const a of ['settings.update', 'signing_key.replace', 'trust.create', 'trust.delete', 'repo.create']) expect(all).toContain(a);
    await expect(page.locator('tbody tr').first().textContent()).resolves.toContain('127.0.0.1');
    await page.getByLabel('Action').fill('trust');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/action=trust/);
    await expect.poll(actions).toEqual(['trust.delete', 'trust.create', 'trust.create']);
    await screenshot(page, 'audit-log');
    await page.goto(`${server.base}/#/admin/audit?repo=apt`);
    await expect.poll(actions).toEqual(['repo.create']);

    await page.goto(`${server.base}/#/admin/publish-log`);
    await page.getByLabel('Proof').selectOption('oidc');
    await page.getByRole('button', { name: 'Filter' }).click();
    const row = page.locator('tbody tr');
    await expect.poll(() => row.count()).toBe(1);
    await expect(row.textContent()).resolves.toMatch(/releases.*CI.*widgets-release/);
    await expect(row.textContent()).resolves.toContain('repository: acme/widgets');
    await screenshot(page, 'publish-log');
  }, 60_000);

  it('shows the system status', async () => {
    const { page } = await adminPage();
    await page.goto(`${server.base}/#/admin/system`);
    const stats = page.getByTestId('system-stats');
    await expect(stats.textContent()).resolves.toMatch(/Repositories2Files1/);
    await page.getByText(/free of/).first().waitFor();
    const sys = await api<{ storage: { location: string }; version: string }>(server.base, 'GET', '/api/system');
    await page.getByText(sys.storage.location, { exact: false }).first().waitFor();
    await page.getByText(sys.version, { exact: true }).waitFor();
    await screenshot(page, 'system');
  }, 60_000);

  it('fits every console page on a 360 px phone, wide tables with row actions included', async () => {
    await api(server.base, 'POST', '/api/publish/trusts', {
      name: 'a-policy-with-a-rather-long-name-for-a-narrow-screen',
      issuer: 'https://token.actions.githubusercontent.com',
      audience: 'trove',
      claims: { repository: ['acme/widgets'] },
      jwks: 'https://token.actions.githubusercontent.com/.well-known/jwks',
      repos: ['releases', 'apt'],
    });
    const { page } = await adminPage({ width: 360, height: 780 });
    for (const route of ['#/admin/system', '#/admin/settings', '#/admin/settings?group=storage', '#/admin/signing-key', '#/admin/trusts', '#/admin/trusts/new', '#/admin/audit', '#/admin/publish-log', '#/admin/mirror', '#/admin/storage/moves/current']) {
      await page.goto(`${server.base}/${route}`);
      await page.locator('main h1').waitFor();
      await page.waitForLoadState('networkidle');
      const w = await page.evaluate(() => document.documentElement.scrollWidth);
      expect({ route, w }).toEqual({ route, w: 360 });
    }
    await page.goto(`${server.base}/#/admin/trusts`);
    await page.locator('tbody tr').first().waitFor();
    await screenshot(page, 'trusts-mobile');
  }, 90_000);

  it('works from the keyboard alone: a setting saved with Enter, a delete cancelled with Escape and confirmed with Enter', async () => {
    const { page } = await adminPage();
    await page.goto(`${server.base}/#/admin/settings?group=publishing`);
    await page.getByLabel('Publish session lifetime').focus();
    await page.keyboard.press('Control+A');
    await page.keyboard.type('10m');
    await page.keyboard.press('Enter');
    await page.getByText('Saved 1 change.').waitFor();
    expect(await setting('publish.session_ttl')).toMatchObject({ value: '10m', source: 'db' });

    await page.goto(`${server.base}/#/admin/trusts`);
    const name = 'a-policy-with-a-rather-long-name-for-a-narrow-screen';
    const row = page.locator('tbody tr', { hasText: name });
    const focused = () => page.evaluate(() => document.activeElement?.textContent ?? '');
    await row.getByRole('button', { name: 'Delete' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(focused).toBe(`Delete ${name}`); // the confirmation takes the focus
    await page.keyboard.press('Escape');
    await expect.poll(focused).toBe('Delete'); // and gives it back
    await page.keyboard.press('Enter');
    await page.keyboard.press('Enter');
    await page.getByText(`Policy ${name} deleted`).waitFor();
  }, 60_000);
});
