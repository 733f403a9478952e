import { describe, expect, it } from 'vitest';
import { addVirtualAuthenticator } from './browser.js';
import { createUser, screenshot, totpCode, uiSuite } from './harness.js';

const server = uiSuite();
const NEW_ADMIN = { username: 'ada', password: 'ada admin password' };

describe('sign-in in the browser', () => {
  it('takes a new admin from a first sign-in through TOTP setup, then signs in with a code', async () => {
    // Not the bootstrap admin: the harness signs that one in over the API to create users.
    await createUser(server.base, NEW_ADMIN.username, NEW_ADMIN.password, true);
    const browser = await server.browser();
    const page = await browser.context.newPage();
    await page.goto(`${server.base}/#/publishing`);
    // anonymous: sent to sign-in, and back to the page afterwards
    await page.getByLabel('User name').fill(NEW_ADMIN.username);
    await page.getByLabel('Password').fill(NEW_ADMIN.password);
    await page.getByRole('button', { name: 'Continue' }).click();

    // no second factor yet: the setup-only session goes straight to setting one up
    await page.getByText('Set up a second factor to continue.').waitFor();
    expect(page.url()).toContain('#/security');
    // recovery codes stand in for a factor, so none are offered before one exists (the server refuses them)
    await page.getByText('Recovery codes can be made once you have an authenticator app or a passkey.').waitFor();
    expect(await page.getByRole('button', { name: 'Generate recovery codes' }).count()).toBe(0);
    await page.getByRole('button', { name: 'Add an authenticator app' }).click();
    const secret = await page.getByTestId('totp-secret').getAttribute('data-secret');
    expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
    await page.getByAltText('QR code holding the authenticator secret').waitFor();
    await screenshot(page, 'totp-setup');
    await page.getByLabel('Enter the code the app shows').fill(totpCode(secret!));
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.getByText('Your second factor is set up.').waitFor();
    // the session is a full one now: the admin's pages are offered
    await page.getByRole('link', { name: 'Manage repos' }).waitFor();
    await page.getByRole('button', { name: 'Generate recovery codes' }).waitFor();

    // sign out, then sign in again: password, then a fresh code (the next step; this one is spent)
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('User name').fill(NEW_ADMIN.username);
    await page.getByLabel('Password').fill(NEW_ADMIN.password);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByLabel('6-digit code from your authenticator app').fill('000000');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: /./ }).waitFor();
    await screenshot(page, 'sign-in-second-factor');
    await page.getByLabel('6-digit code from your authenticator app').fill(totpCode(secret!, 1));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Repositories', level: 1 }).waitFor();
    await page.locator('.who .user', { hasText: NEW_ADMIN.username }).waitFor();
  }, 60_000);

  it('registers a passkey through a virtual authenticator, signs in with it, then once with a downloaded recovery code', async () => {
    await createUser(server.base, 'pia', 'pia passkey password');
    const browser = await server.browser();
    const page = await browser.context.newPage();
    const authenticator = await addVirtualAuthenticator(page);
    await page.goto(`${server.base}/#/login`);
    await page.getByLabel('User name').fill('pia');
    await page.getByLabel('Password').fill('pia passkey password');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByText('Set up a second factor to continue.').waitFor();
    await page.getByLabel('Name for the new passkey').fill('Test laptop');
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page.getByText('Passkey “Test laptop” added.').waitFor();
    expect(await authenticator.credentials()).toHaveLength(1);
    await page.getByRole('button', { name: 'Generate recovery codes' }).click();
    await page.getByRole('region', { name: 'New recovery codes' }).waitFor();
    await expect(page.locator('.codes li').count()).resolves.toBe(10);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download as text' }).click()]);
    expect(download.suggestedFilename()).toBe('trove-recovery-codes.txt');
    const saved = await download.path();
    const { readFileSync } = await import('node:fs');
    const firstCode = await page.locator('.codes li code').first().textContent();
    expect(readFileSync(saved!, 'utf8')).toContain(firstCode!);
    await screenshot(page, 'security');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('User name').fill('pia');
    await page.getByLabel('Password').fill('pia passkey password');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await page.getByRole('heading', { name: 'Repositories', level: 1 }).waitFor();
    await page.locator('.who .user', { hasText: 'pia' }).waitFor();

    // a recovery code signs in once
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('User name').fill('pia');
    await page.getByLabel('Password').fill('pia passkey password');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('button', { name: 'Recovery code', pressed: false }).click();
    await page.getByLabel('One of your recovery codes').fill(firstCode!);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('.who .user', { hasText: 'pia' }).waitFor();
    await page.goto(`${server.base}/#/security`);
    await expect(page.getByTestId('recovery-unused').textContent()).resolves.toBe('9');
  }, 60_000);

  it('explains an SSO refusal from the login URL in words', async () => {
    const browser = await server.browser({ width: 360, height: 740 });
    const page = await browser.context.newPage();
    await page.goto(`${server.base}/#/login?error=not_authorized`);
    await expect(page.getByRole('alert').textContent()).resolves.toMatch(/not allowed here/);
    await screenshot(page, 'sign-in-mobile');
    // A reason the page does not know is not shown as given: the link's text is anyone's to write.
    // (Only the hash changes: wait for the page to show the new reason before reading it.)
    await page.goto(`${server.base}/#/login?error=Account_locked._Call_555-0100`);
    await page.getByRole('alert').filter({ hasText: 'Sign-in did not complete' }).waitFor();
    await expect(page.getByRole('alert').textContent()).resolves.not.toMatch(/555|locked/i);
    await page.goto(`${server.base}/#/login?error=rate_limited`);
    await page.getByRole('alert').filter({ hasText: /too many/i }).waitFor();
  }, 60_000);

  it('signs in with the keyboard alone and lands on the focused page heading', async () => {
    await createUser(server.base, 'kim', 'kim keyboard password');
    const browser = await server.browser();
    const page = await browser.context.newPage();
    await page.goto(`${server.base}/#/login`);
    await page.getByLabel('User name').waitFor();
    await page.keyboard.type('kim'); // the user name field has focus
    await page.keyboard.press('Tab');
    await page.keyboard.type('kim keyboard password');
    await page.keyboard.press('Enter');
    await page.getByText('Set up a second factor to continue.').waitFor();
    await expect(page.evaluate(() => document.activeElement?.textContent)).resolves.toBe('Security');
    // every control on the page is reachable and named
    const unnamed = await page.evaluate(() =>
      Array.from(document.querySelectorAll('input, select, textarea, button')).filter((el) => {
        const e = el as HTMLInputElement;
        return !(e.labels?.length || e.getAttribute('aria-label') || (el.tagName === 'BUTTON' && el.textContent?.trim()));
      }).length,
    );
    expect(unnamed).toBe(0);
    await screenshot(page, 'second-factor-required');
  }, 60_000);
});
