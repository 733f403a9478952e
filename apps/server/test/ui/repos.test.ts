import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { adminSession, ADMIN, api, basicAuth, createUser, screenshot, signInWithTotp, totpCode, uiSuite, useSession, type SignedIn } from './harness.js';

// a slow index rebuild, so the page can be seen while it is pending
const server = uiSuite({ TR_DEB_DEBOUNCE: '4s' });
let admin: SignedIn;
beforeAll(async () => {
  admin = await adminSession(server.base);
});

const PATH = 'dist/app/1.0.0/app-1.0.0.tar.gz';
const MAKE_DEB = fileURLToPath(new URL('../../../../scripts/clients/make-deb.sh', import.meta.url));
const BYTES = Buffer.from('release bytes of app 1.0.0\n'.repeat(100));

describe('repositories in the browser', () => {
  it('lets an admin create a repository, then browse to an uploaded file and its checksums', async () => {
    const browser = await server.browser();
    await useSession(browser.context, server.base, admin);
    const page = await browser.context.newPage();
    const elsewhere: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith(`${server.base}/`) && !/^(data|blob):/.test(r.url())) elsewhere.push(r.url());
    });
    await page.goto(`${server.base}/#/`);
    await page.getByText('No repositories yet.').waitFor();
    await page.getByRole('link', { name: 'Create the first one' }).click();
    await page.getByLabel('Name', { exact: true }).fill('releases');
    await page.getByRole('radio', { name: /Raw files/ }).check();
    await page.getByLabel('Anonymous read').check();
    await page.getByLabel('Uploading a different file to an existing path').selectOption('deny');
    await screenshot(page, 'repo-create');
    await page.getByRole('button', { name: 'Create repository' }).click();
    await page.getByText('Repository releases created.').waitFor();
    const repo = await api<{ format: string; anonymous_read: boolean; overwrite: string }>(server.base, 'GET', '/api/repos/releases');
    expect(repo).toMatchObject({ format: 'raw', anonymous_read: true, overwrite: 'deny' });

    // upload over HTTP with a manual publish session, as a terminal would
    const session = await api<{ token: string }>(server.base, 'POST', '/api/publish/sessions/manual', { repo: 'releases', totp_code: totpCode(admin.secret) }, { Cookie: admin.cookie });
    const put = await fetch(`${server.base}/raw/releases/${PATH}`, { method: 'PUT', body: BYTES, headers: { Authorization: basicAuth('ci', session.token) } });
    expect(put.status).toBe(201);

    await page.getByRole('link', { name: 'Browse files' }).click();
    await page.getByRole('link', { name: 'dist/' }).waitFor();
    await page.getByRole('button', { name: 'Expand app' }).click();
    await page.getByRole('button', { name: 'Expand 1.0.0' }).click();
    const row = page.locator('.node.file', { hasText: 'app-1.0.0.tar.gz' });
    await expect(row.textContent()).resolves.toMatch(/2\.6 KB.*root/);
    await screenshot(page, 'repo-browse');
    await row.getByRole('link', { name: 'app-1.0.0.tar.gz' }).click();

    const sha256 = createHash('sha256').update(BYTES).digest('hex');
    await page.getByText(sha256).waitFor();
    const href = await page.getByRole('link', { name: 'Download' }).getAttribute('href');
    expect(href).toBe(`/raw/releases/${PATH}`);
    const download = await fetch(`${server.base}${href}`);
    expect(Buffer.from(await download.arrayBuffer()).equals(BYTES)).toBe(true);
    await screenshot(page, 'file-details');

    // search finds it by a piece of its path
    await page.getByRole('searchbox').fill('1.0.0.tar');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('link', { name: PATH }).waitFor();
    expect(elsewhere).toEqual([]); // no CDN, no web fonts: nothing leaves the machine
  }, 60_000);

  it('shows the repository page on a 360 px phone', async () => {
    const browser = await server.browser({ width: 360, height: 780 });
    const page = await browser.context.newPage();
    await page.goto(`${server.base}/#/repos/releases`); // anonymous read: no sign-in needed
    await page.getByRole('heading', { name: 'Use this repository' }).waitFor();
    await page.getByRole('link', { name: 'dist/' }).waitFor();
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(width).toBeLessThanOrEqual(360);
    await screenshot(page, 'repo-mobile');

    // every signed-in page fits the phone's width too (wide tables scroll inside their frame)
    await useSession(browser.context, server.base, admin);
    for (const route of ['#/', '#/publishing', '#/tokens', '#/security', '#/admin/repos/releases', '#/admin/repos?new=1', '#/admin/users', `#/repos/releases?file=${PATH}`]) {
      await page.goto(`${server.base}/${route}`);
      await page.locator('main h1').waitFor();
      await page.waitForLoadState('networkidle');
      const w = await page.evaluate(() => document.documentElement.scrollWidth);
      expect({ route, w }).toEqual({ route, w: 360 });
    }
  }, 60_000);

  it('edits permissions and users as an admin', async () => {
    await api(server.base, 'POST', '/api/users', { username: 'uma', password: 'uma long password' });
    await api(server.base, 'POST', '/api/repos', { name: 'internal-tools', format: 'raw' });
    const browser = await server.browser();
    await useSession(browser.context, server.base, admin);
    const page = await browser.context.newPage();
    await page.goto(`${server.base}/#/`);
    await page.getByRole('link', { name: /internal-tools/ }).waitFor();
    await screenshot(page, 'repos');
    await page.goto(`${server.base}/#/admin/repos/releases`);
    await page.getByLabel('User', { exact: true }).fill('uma');
    await page.getByLabel('Access', { exact: true }).selectOption('write');
    await page.getByRole('button', { name: 'Grant' }).click();
    await page.getByLabel('Access of uma').waitFor();
    const perms = await api<{ items: { username: string; level: string }[] }>(server.base, 'GET', '/api/repos/releases/permissions');
    expect(perms.items).toEqual([{ username: 'uma', level: 'write' }]);
    await screenshot(page, 'repo-admin');

    await page.goto(`${server.base}/#/admin/users`);
    // The admin's own row: changing one's own password proves the current one, which the Security page asks for.
    const own = page.locator('.user').filter({ has: page.locator('strong', { hasText: new RegExp(`^${ADMIN.username}$`) }) });
    await own.getByRole('link', { name: 'Change your password' }).waitFor();
    expect(await own.getByRole('button', { name: 'Reset password' }).count()).toBe(0);
    // A user who lost their authenticator: the admin removes their factors; the next sign-in sets up a new one.
    await createUser(server.base, 'vera', 'vera lost her phone');
    await signInWithTotp(server.base, 'vera', 'vera lost her phone');
    await page.reload();
    const vera = page.locator('.user', { hasText: 'vera' });
    await vera.getByRole('button', { name: 'Reset second factor' }).click();
    await vera.getByRole('button', { name: 'Remove every second factor of vera' }).click();
    await vera.getByText('vera has no second factor now').waitFor();
    await vera.getByText('no second factor', { exact: true }).waitFor();
    const uma = page.locator('.user', { hasText: 'uma' });
    await uma.getByRole('button', { name: 'Reset password' }).click();
    await uma.getByLabel('New password for uma').fill('uma second password');
    await uma.getByRole('button', { name: 'Set password', exact: true }).click();
    await uma.getByText('New password set for uma.').waitFor();
    expect((await fetch(`${server.base}/api/me`, { headers: { Authorization: basicAuth('uma', 'uma second password') } })).status).toBe(200);
    await uma.getByRole('button', { name: 'Disable' }).click();
    await uma.getByText('disabled', { exact: true }).waitFor();
    expect((await fetch(`${server.base}/api/me`, { headers: { Authorization: basicAuth('uma', 'uma second password') } })).status).toBe(401);
    await screenshot(page, 'users');
  }, 60_000);

  it('shows a Debian repository\'s index status while the indexes rebuild, then up to date', async () => {
    await api(server.base, 'POST', '/api/repos', { name: 'apt', format: 'debian', anonymous_read: true });
    const dir = mkdtempSync(join(tmpdir(), 'trove-deb-'));
    const deb = execFileSync('bash', [MAKE_DEB, 'hello', '1.0', 'amd64', dir], { encoding: 'utf8' }).trim();
    const bytes = readFileSync(deb);
    rmSync(dir, { recursive: true, force: true });
    const session = await api<{ token: string }>(server.base, 'POST', '/api/publish/sessions/manual', { repo: 'apt', totp_code: totpCode(admin.secret, 1) }, { Cookie: admin.cookie });
    const up = await fetch(`${server.base}/debian/apt/upload/stable/main`, { method: 'PUT', body: bytes, headers: { Authorization: basicAuth('ci', session.token) } });
    expect(up.status, await up.text()).toBe(201); // the message says why when the server refuses the package

    const browser = await server.browser();
    const page = await browser.context.newPage();
    await page.goto(`${server.base}/#/repos/apt`);
    await expect(page.getByTestId('index-status').textContent()).resolves.toMatch(/indexes rebuilding \(\d+ pending\)/);
    await screenshot(page, 'debian-pending');
    await page.getByText('indexes up to date').waitFor({ timeout: 20_000 });
    await page.getByRole('link', { name: 'pool/' }).waitFor();
  }, 60_000);

  it('shows a Maven artifact with its coordinates as ready-to-paste dependencies', async () => {
    await createUser(server.base, 'mia', 'mia long password', true);
    const mia = await signInWithTotp(server.base, 'mia', 'mia long password');
    await api(server.base, 'POST', '/api/repos', { name: 'libs', format: 'maven', config: { version_policy: 'release' } });
    const session = await api<{ token: string }>(server.base, 'POST', '/api/publish/sessions/manual', { repo: 'libs', totp_code: totpCode(mia.secret) }, { Cookie: mia.cookie });
    const jar = Buffer.from('PK fake jar bytes');
    const up = await fetch(`${server.base}/maven/libs/org/acme/widget/1.0.0/widget-1.0.0.jar`, { method: 'PUT', body: jar, headers: { Authorization: basicAuth('ci', session.token) } });
    expect(up.status).toBe(201);

    const browser = await server.browser();
    await useSession(browser.context, server.base, mia);
    const page = await browser.context.newPage();
    await page.goto(`${server.base}/#/repos/libs?file=org/acme/widget/1.0.0/widget-1.0.0.jar`);
    const gradle = page.getByRole('figure').filter({ hasText: 'Depend on it: Gradle' }).locator('pre');
    await expect(gradle.textContent()).resolves.toBe('implementation("org.acme:widget:1.0.0")');
    await expect(page.getByRole('link', { name: 'Download' }).getAttribute('href')).resolves.toBe('/maven/libs/org/acme/widget/1.0.0/widget-1.0.0.jar');
    await screenshot(page, 'maven-artifact');
  }, 60_000);

  it('creates a Debian repository with its config filled in as a form', async () => {
    const browser = await server.browser();
    await useSession(browser.context, server.base, admin);
    const page = await browser.context.newPage();
    await page.goto(`${server.base}/#/admin/repos?new=1`);
    await page.getByLabel('Name', { exact: true }).fill('apt-main');
    await page.getByRole('radio', { name: /Debian/ }).check();
    const arch = page.getByLabel('Architectures');
    await arch.fill('');
    await arch.pressSequentially('amd64, arm64, riscv64');
    await page.getByLabel('Origin').fill('Acme');
    await screenshot(page, 'repo-create-debian');
    await page.getByRole('button', { name: 'Create repository' }).click();
    await page.getByText('Repository apt-main created.').waitFor();
    const repo = await api<{ format: string; config: unknown }>(server.base, 'GET', '/api/repos/apt-main');
    expect(repo).toEqual(expect.objectContaining({ format: 'debian', config: { architectures: ['amd64', 'arm64', 'riscv64'], origin: 'Acme' } }));
    // a config the format refuses comes back as the API's error, in words
    await page.getByLabel('Architectures').fill('not an arch!');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toMatch(/invalid config for format debian/i);
  }, 60_000);
});
