import { describe, expect, it } from 'vitest';
import { api, basicAuth, createRepo, createUser, grant, screenshot, signInWithTotp, uiSuite, useSession } from './harness.js';

const server = uiSuite();

describe('read tokens in the browser', () => {
  it('creates a token shown once that reads the API, lists it with its last use, and deletes it', async () => {
    await createUser(server.base, 'tess', 'tess long password');
    const session = await signInWithTotp(server.base, 'tess', 'tess long password');
    const browser = await server.browser();
    await useSession(browser.context, server.base, session);
    const page = await browser.context.newPage();
    await page.goto(`${server.base}/#/tokens`);
    await page.getByText('No tokens yet.').waitFor();
    await page.getByLabel('Token name').fill('build server');
    await page.getByLabel('Expires after').selectOption('30');
    await page.getByRole('button', { name: 'Create token' }).click();
    const token = await page.getByTestId('secret').textContent();
    expect(token).toMatch(/^trp_/);
    await screenshot(page, 'tokens');

    const me = await fetch(`${server.base}/api/me`, { headers: { Authorization: basicAuth('anyone', token!) } });
    expect(me.status).toBe(200);
    expect((await me.json()).username).toBe('tess');

    await page.reload();
    const row = page.getByRole('row', { name: /build server/ });
    await expect(row.textContent()).resolves.toMatch(/just now.*just now|in 30 days|in 4 weeks|next month/);
    await expect(page.getByTestId('secret').count()).resolves.toBe(0); // shown once only

    await row.getByRole('button', { name: 'Delete' }).click();
    await row.getByRole('button', { name: 'Delete build server' }).click();
    await page.getByText('No tokens yet.').waitFor();
    expect((await fetch(`${server.base}/api/me`, { headers: { Authorization: basicAuth('anyone', token!) } })).status).toBe(401);
  }, 60_000);

  it('pages a long token list with the API cursor', async () => {
    await createUser(server.base, 'pat', 'pat long password');
    const session = await signInWithTotp(server.base, 'pat', 'pat long password');
    for (let i = 0; i < 55; i++) await api(server.base, 'POST', '/api/tokens', { name: `ci-${String(i).padStart(2, '0')}` }, { Cookie: session.cookie });
    const browser = await server.browser();
    await useSession(browser.context, server.base, session);
    const page = await browser.context.newPage();
    await page.goto(`${server.base}/#/tokens`);
    const rows = page.locator('tbody tr');
    await page.getByRole('button', { name: 'Load more tokens' }).waitFor();
    await expect(rows.count()).resolves.toBe(50);
    await page.getByRole('button', { name: 'Load more tokens' }).click();
    // The button also goes away while the next page loads: wait for that page's rows, then for the list's end.
    await rows.nth(54).waitFor();
    await page.getByRole('button', { name: 'Load more tokens' }).waitFor({ state: 'detached' });
    await expect(rows.count()).resolves.toBe(55);
    const names = await rows.locator('td:first-child').allTextContents();
    expect(new Set(names).size).toBe(55); // no row twice, none missing
    await screenshot(page, 'tokens-paged');
  }, 60_000);

  it("writes the server's base URL into the token and CLI snippets, not the address the browser used", async () => {
    await createUser(server.base, 'olga', 'olga long password');
    await createRepo(server.base, 'olga-files', 'raw');
    await grant(server.base, 'olga-files', 'olga', 'read');
    const session = await signInWithTotp(server.base, 'olga', 'olga long password');
    // The same server under another name than its base_url (http://localhost:PORT).
    const other = server.base.replace('//localhost:', '//127.0.0.1:');
    const browser = await server.browser();
    await useSession(browser.context, other, session);
    const page = await browser.context.newPage();
    await page.goto(`${other}/#/tokens`);
    await page.getByLabel('Token name').fill('laptop');
    await page.getByRole('button', { name: 'Create token' }).click();
    const curl = page.locator('pre[aria-label="curl"]');
    await expect(curl.textContent()).resolves.toContain(`${server.base}/raw/REPO/`);
    const apt = page.locator('pre[aria-label^="apt"]');
    await expect(apt.textContent()).resolves.toContain(`machine ${server.base.replace('http://', '')}/debian/`);

    await page.goto(`${other}/#/publishing`);
    await page.getByText(`npm install -g ${server.base}/downloads/trove-cli.tgz`).waitFor({ timeout: 10_000 });
    await expect(page.getByText(other).count()).resolves.toBe(0);
  }, 60_000);
});
