import { sign } from 'node:crypto';
import { NexusDouble } from '@trove/mirror/testing/nexus-double';
import { beforeAll, describe, expect, it } from 'vitest';
import { addVirtualAuthenticator } from './browser.js';
import { ADMIN, api, basicAuth, createRepo, createUser, deviceKey, grant, screenshot, signInWithTotp, totpCode, uiSuite, useSession } from './harness.js';

const server = uiSuite();
beforeAll(async () => {
  await createRepo(server.base, 'apps', 'raw');
});

/** A user with write on `apps`, TOTP set up, signed in in a fresh browser. */
async function publisher(name: string) {
  await createUser(server.base, name, `${name} long password`);
  await grant(server.base, 'apps', name, 'write');
  const session = await signInWithTotp(server.base, name, `${name} long password`);
  const browser = await server.browser();
  await useSession(browser.context, server.base, session);
  return { session, page: await browser.context.newPage() };
}

describe('publishing in the browser', () => {
  it('approves a device from its verification URL with a fresh TOTP code, completing the device flow', async () => {
    const { session, page } = await publisher('dana');
    const key = deviceKey();
    const enroll = await api<{ device_code: string; user_code: string; verification_url: string }>(server.base, 'POST', '/api/devices/enroll', {
      name: 'dana-laptop gradle',
      kind: 'gradle',
      public_key: key.publicKey,
    }, {});
    const poll = () => fetch(`${server.base}/api/devices/enroll/poll`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ device_code: enroll.device_code }) });
    expect((await (await poll()).json()).error).toBe('authorization_pending');

    await page.goto(enroll.verification_url);
    await expect(page.getByLabel('Device code').inputValue()).resolves.toBe(enroll.user_code);
    await expect(page.getByTestId('pending-device').textContent()).resolves.toBe('dana-laptop gradle');
    await page.getByRole('region', { name: 'Device waiting for approval' }).getByLabel('Authenticator app code').fill(totpCode(session.secret));
    await screenshot(page, 'device-approval');
    await page.getByRole('button', { name: 'Approve with code' }).click();
    await page.getByText('Return to your terminal').waitFor();
    await page.getByRole('cell', { name: /dana-laptop gradle/ }).waitFor();

    // the device's poll now gets its id, and the device key opens a publish session
    await new Promise((r) => setTimeout(r, 5_000)); // the poll interval
    const done = await poll();
    expect(done.status).toBe(200);
    const { device_id } = (await done.json()) as { device_id: string };
    const { nonce } = await api<{ nonce: string }>(server.base, 'POST', '/api/publish/challenge', { device_id }, {});
    const signature = sign(null, Buffer.from(`service publish v1\n${nonce}\n${device_id}\napps`), key.privateKey).toString('base64url');
    const created = await api<{ token: string }>(server.base, 'POST', '/api/publish/sessions', { device_id, repo: 'apps', nonce, signature }, {});
    expect(created.token).toMatch(/^trs_/);
  }, 60_000);

  it('starts a manual publish session and shows the token once with commands that work', async () => {
    const { session, page } = await publisher('manu');
    await page.goto(`${server.base}/#/publishing`);
    await page.getByLabel('Repository').selectOption('apps');
    await page.getByRole('region', { name: 'Start a publish session' }).getByLabel('Authenticator app code').fill(totpCode(session.secret));
    await page.getByRole('button', { name: 'Start session with code' }).click();
    const token = await page.getByTestId('secret').textContent();
    expect(token).toMatch(/^trs_/);
    const curl = await page.getByRole('figure').filter({ hasText: 'curl: upload a file' }).locator('pre').textContent();
    expect(curl).toContain(`publisher:${token}`);
    expect(curl).toContain(`${server.base}/raw/apps/`);
    await page.getByRole('cell', { name: 'by hand' }).first().waitFor();
    await screenshot(page, 'manual-session');

    // the token shown writes to the repository
    const put = await fetch(`${server.base}/raw/apps/notes/hello.txt`, { method: 'PUT', body: 'hello', headers: { Authorization: basicAuth('publisher', token!) } });
    expect(put.status).toBe(201);
    // ending it in the page closes it at once
    await page.getByRole('button', { name: 'End this session now' }).click();
    await page.getByText('The session is closed').waitFor();
    const after = await fetch(`${server.base}/raw/apps/notes/other.txt`, { method: 'PUT', body: 'x', headers: { Authorization: basicAuth('publisher', token!) } });
    expect(after.status).toBe(401);
  }, 60_000);

  it('approves a device with a fresh passkey check, and revoking the device ends its enrollment', async () => {
    await createUser(server.base, 'paul', 'paul long password');
    const browser = await server.browser();
    const page = await browser.context.newPage();
    await addVirtualAuthenticator(page);
    await page.goto(`${server.base}/#/login`);
    await page.getByLabel('User name').fill('paul');
    await page.getByLabel('Password').fill('paul long password');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page.getByText('Passkey “Passkey” added.').waitFor();

    const key = deviceKey();
    const enroll = await api<{ user_code: string; device_code: string }>(server.base, 'POST', '/api/devices/enroll', { name: 'paul-ci-box', kind: 'maven', public_key: key.publicKey }, {});
    await page.goto(`${server.base}/#/publishing?user_code=${enroll.user_code}`);
    await page.getByTestId('pending-device').waitFor();
    // The page tells how to get the CLI from this very server.
    await page.getByText(`npm install -g ${server.base}/downloads/trove-cli.tgz`).waitFor();
    await page.getByRole('button', { name: 'Approve with a passkey' }).click();
    await page.getByText('Return to your terminal').waitFor();
    const row = page.getByRole('row', { name: /paul-ci-box/ });
    await row.waitFor();
    await screenshot(page, 'devices');
    await row.getByRole('button', { name: 'Revoke' }).click();
    await row.getByRole('button', { name: 'Revoke paul-ci-box' }).click();
    await page.getByText('No enrolled devices.').waitFor();
    const devices = await api<{ items: { name: string }[] }>(server.base, 'GET', '/api/devices', undefined, { Authorization: basicAuth(ADMIN.username, ADMIN.password) });
    expect(devices.items.map((d) => d.name)).not.toContain('paul-ci-box');
  }, 60_000);

  it('takes a new user from the verification URL through sign-in and second-factor setup back to the approval', async () => {
    await createUser(server.base, 'nina', 'nina long password');
    const key = deviceKey();
    const enroll = await api<{ user_code: string; verification_url: string }>(server.base, 'POST', '/api/devices/enroll', { name: 'nina-gradle', kind: 'gradle', public_key: key.publicKey }, {});
    const browser = await server.browser();
    const page = await browser.context.newPage();
    await page.goto(enroll.verification_url);
    await page.getByLabel('User name').fill('nina');
    await page.getByLabel('Password').fill('nina long password');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('button', { name: 'Add an authenticator app' }).click();
    const secret = (await page.getByTestId('totp-secret').getAttribute('data-secret'))!;
    await page.getByLabel('Enter the code the app shows').fill(totpCode(secret));
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.getByRole('link', { name: 'Continue where you were going' }).click();
    await expect(page.getByTestId('pending-device').textContent()).resolves.toBe('nina-gradle');
    await page.getByRole('region', { name: 'Device waiting for approval' }).getByLabel('Authenticator app code').fill(totpCode(secret, 1));
    await page.getByRole('button', { name: 'Approve with code' }).click();
    await page.getByText('Return to your terminal').waitFor();
    await screenshot(page, 'device-approved');
  }, 60_000);

  it('does not offer a mirrored repository for a manual session: writes there are refused until cut-over', async () => {
    const nexus = await NexusDouble.start();
    try {
      nexus.addRepo('files', 'raw');
      const source = await api<{ id: string }>(server.base, 'POST', '/api/mirror/sources', { name: 'old-nexus', base_url: nexus.url, username: 'admin', password: 'admin123' });
      await api(server.base, 'PUT', `/api/mirror/sources/${source.id}/repos`, [{ source_repo: 'files', target: 'mirrored', create: true }]);
      expect((await api<{ locked_by: string }>(server.base, 'GET', '/api/repos/mirrored')).locked_by).not.toBe('');
      const { page } = await publisher('mira');
      await grant(server.base, 'mirrored', 'mira', 'write');
      await page.goto(`${server.base}/#/publishing`);
      const select = page.getByLabel('Repository');
      await select.waitFor();
      const offered = await select.locator('option:not([disabled])').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
      expect(offered).toEqual(['apps']);
      await expect(select.inputValue()).resolves.toBe('apps');
    } finally {
      await nexus.close();
    }
  }, 60_000);
});
