import { beforeAll, describe, expect, it } from 'vitest';
import { adminSession, api, basicAuth, createRepo, totpCode, uiSuite, useSession, type SignedIn } from './harness.js';

// Issue 12, point 1: a user who may write one repository uploads a page; an admin opens its link.
const server = uiSuite();
let admin: SignedIn;

/** A script that, if it ever ran on Trove's origin with the admin's cookie, would create an admin. */
const attack = (name: string) =>
  `document.title='ran';fetch('/api/users',{method:'POST',headers:{'Content-Type':'application/json'},body:JSON.stringify({username:'${name}',password:'pwned-password-1',is_admin:true})})`;

const FILES: { path: string; type: string; body: string }[] = [
  { path: '/raw/files/index.html', type: 'text/html', body: `<!doctype html><html><body><h1>hi</h1><script>${attack('pwned-html')}</script></body></html>` },
  { path: '/raw/files/logo.svg', type: 'image/svg+xml', body: `<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>${attack('pwned-svg')}</script></svg>` },
  {
    path: '/maven/libs/org/evil/x/1.0/x-1.0.pom',
    type: 'application/xml',
    body: `<?xml version="1.0"?><project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion><groupId>org.evil</groupId><artifactId>x</artifactId><version>1.0</version><html:script xmlns:html="http://www.w3.org/1999/xhtml">${attack('pwned-pom')}</html:script></project>`,
  },
];

async function publishToken(repo: string, step: number): Promise<string> {
  const s = await api<{ token: string }>(server.base, 'POST', '/api/publish/sessions/manual', { repo, totp_code: totpCode(admin.secret, step) }, { Cookie: admin.cookie });
  return s.token;
}

beforeAll(async () => {
  admin = await adminSession(server.base);
  // Readable without Basic credentials, so the browser fetches the files with the admin's cookie jar alone.
  await createRepo(server.base, 'files', 'raw', { anonymous_read: true });
  await createRepo(server.base, 'libs', 'maven', { anonymous_read: true });
  // The admin session's TOTP setup spent step -1: each manual session takes the next one.
  const tokens = { files: await publishToken('files', 0), libs: await publishToken('libs', 1) };
  for (const f of FILES) {
    const token = f.path.startsWith('/raw/') ? tokens.files : tokens.libs;
    const r = await fetch(server.base + f.path, { method: 'PUT', body: f.body, headers: { Authorization: basicAuth('ci', token), 'Content-Type': f.type } });
    if (r.status !== 201) throw new Error(`upload ${f.path}: ${r.status} ${await r.text()}`);
  }
}, 60_000);

describe('uploaded files in a signed-in admin\'s browser', () => {
  it('run no script and create no user when the admin opens an HTML file, an SVG and a POM', async () => {
    const browser = await server.browser();
    await useSession(browser.context, server.base, admin);
    const page = await browser.context.newPage();
    for (const f of FILES) {
      // An attachment makes Chromium download instead of navigate ("Download is starting").
      await page.goto(server.base + f.path).catch(() => undefined);
      await page.waitForTimeout(1000);
      expect(await page.title().catch(() => ''), f.path).not.toBe('ran');
    }
    const users = await api<{ items: { username: string }[] }>(server.base, 'GET', '/api/users', undefined, { Cookie: admin.cookie });
    expect(users.items.map((u) => u.username).filter((n) => n.startsWith('pwned'))).toEqual([]);
  }, 60_000);

  it('still renders Trove\'s own directory listing, under the same sandbox', async () => {
    const browser = await server.browser();
    await useSession(browser.context, server.base, admin);
    const page = await browser.context.newPage();
    const r = await page.goto(`${server.base}/maven/libs/org/evil/x/1.0/`);
    expect(r?.headers()['content-security-policy']).toBe("sandbox; default-src 'none'");
    await page.getByRole('link', { name: 'x-1.0.pom', exact: true }).waitFor();
  }, 60_000);

  it('keeps the UI\'s own strict Content-Security-Policy', async () => {
    const r = await fetch(`${server.base}/`);
    const csp = r.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
    expect(csp).not.toMatch(/https?:\/\//);
  });
});
