import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startS3Server, type TestS3Server } from '@trove/blobstore/testing/s3-server';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminSession, api, basicAuth, createRepo, screenshot, totpCode, uiSuite, useSession, type SignedIn } from './harness.js';

// Issue 18: the storage group's "Test connection" and a storage move, in the browser against the real routes.
const server = uiSuite();
let admin: SignedIn;
let s3: TestS3Server;
/** Enough files that the copy takes a few of the page's one-second polls. */
const FILES = 400;

type Item = { key: string; value: unknown; source: string };
const setting = async (key: string) =>
  (await api<{ groups: { settings: Item[] }[] }>(server.base, 'GET', '/api/settings')).groups.flatMap((g) => g.settings).find((s) => s.key === key)!;

let blobDir: string;

beforeAll(async () => {
  admin = await adminSession(server.base);
  s3 = await startS3Server();
  blobDir = mkdtempSync(join(tmpdir(), 'trove-ui-blobs-'));
  await createRepo(server.base, 'files', 'raw');
}, 60_000);

afterAll(async () => {
  await s3?.close();
  if (blobDir) rmSync(blobDir, { recursive: true, force: true });
});

/** Uploads FILES small files into the raw repository `files`. */
async function upload(): Promise<void> {
  const { token } = await api<{ token: string }>(server.base, 'POST', '/api/publish/sessions/manual', { repo: 'files', totp_code: totpCode(admin.secret, 0) }, { Cookie: admin.cookie });
  const put = async (i: number) => {
    const r = await fetch(`${server.base}/raw/files/f/${i}.txt`, { method: 'PUT', body: `file ${i}\n`, headers: { Authorization: basicAuth('ci', token), 'Content-Type': 'text/plain' } });
    if (r.status !== 201) throw new Error(`upload ${i}: ${r.status} ${await r.text()}`);
  };
  for (let i = 0; i < FILES; i += 20) await Promise.all(Array.from({ length: 20 }, (_, j) => put(i + j)));
}

async function adminPage(): Promise<Page> {
  const browser = await server.browser();
  await useSession(browser.context, server.base, admin);
  return browser.context.newPage();
}

/** Fills the storage group's S3 fields (the form, not saved). */
async function fillS3(page: Page, endpoint: string, bucket: string): Promise<void> {
  const field = (key: string) => page.locator(`[data-key="${key}"]`);
  await field('storage').getByLabel('Blob store', { exact: true }).selectOption('s3');
  await field('s3.endpoint').getByLabel('S3 endpoint', { exact: true }).fill(endpoint);
  await field('s3.bucket').getByLabel('S3 bucket', { exact: true }).fill(bucket);
  await field('s3.region').getByLabel('S3 region', { exact: true }).fill(s3.region);
  await field('s3.access_key_id').getByLabel('S3 access key ID', { exact: true }).fill(s3.accessKeyId);
  const secret = field('s3.secret_access_key');
  if (await secret.getByRole('button', { name: 'Set s3 secret access key' }).count()) await secret.getByRole('button', { name: 'Set s3 secret access key' }).click();
  await secret.getByLabel('S3 secret access key', { exact: true }).fill(s3.secretAccessKey);
  await field('s3.path_style').getByLabel('Path-style addressing', { exact: true }).check();
}

describe('storage in the administrator console', () => {
  it('shows why a connection test failed beside the form and saves nothing', async () => {
    const page = await adminPage();
    await page.goto(`${server.base}/#/admin/settings?group=storage`);
    await page.getByTestId('storage-status').getByText('fs ·', { exact: false }).waitFor();
    // Port 1 on loopback: nothing listens, so the probe's first step (put) is refused.
    await fillS3(page, 'http://127.0.0.1:1', s3.bucket);
    await page.getByRole('button', { name: 'Test connection' }).click();
    const result = page.getByTestId('connection-test');
    await result.waitFor();
    await expect(result.textContent()).resolves.toMatch(/^Test connection failed: storage probe failed at put: .*ECONNREFUSED/i);
    await expect(result.getAttribute('class')).resolves.toContain('bad-text');
    // the form still holds the draft, and nothing was saved
    await expect(page.getByRole('button', { name: /^Save \d+ changes$/ }).count()).resolves.toBe(1);
    expect(await setting('storage')).toMatchObject({ value: 'fs', source: 'default' });
    expect(await setting('s3.endpoint')).toMatchObject({ value: '', source: 'default' });
    await screenshot(page, 'storage-test-failed');
    // the result belongs to the values tested: editing the form takes it away
    await page.locator('[data-key="s3.endpoint"]').getByLabel('S3 endpoint', { exact: true }).fill(s3.endpoint);
    await expect(result.count()).resolves.toBe(0);

    // With no files yet a new location takes over as it is saved: the status says so at once.
    await page.getByRole('button', { name: 'Discard' }).click();
    await page.locator('[data-key="fs.root"]').getByLabel('Blob directory', { exact: true }).fill(blobDir);
    await page.getByRole('button', { name: 'Save 1 change' }).click();
    await page.getByText('Saved 1 change.').waitFor();
    await page.getByTestId('storage-status').getByText(`fs · ${blobDir}`).waitFor();
  }, 60_000);

  it('moves the files to a real S3 server with live progress, then shows the new store and the move', async () => {
    await upload();
    const page = await adminPage();
    await page.goto(`${server.base}/#/admin/settings?group=storage`);
    await page.getByTestId('storage-status').getByText('None yet', { exact: false }).waitFor();
    await fillS3(page, s3.endpoint, s3.bucket);
    await page.getByRole('button', { name: 'Test connection' }).click();
    await page.getByTestId('connection-test').getByText('Test connection: it works.').waitFor();

    const saved = page.waitForResponse((r) => r.url().endsWith('/api/settings') && r.request().method() === 'PATCH');
    await page.getByRole('button', { name: /^Save \d+ changes$/ }).click();
    const answer = await saved;
    expect(answer.status()).toBe(202);
    const { move } = (await answer.json()) as { move: { id: string; state: string; target: Record<string, string> } };
    expect(move).toMatchObject({ state: 'copying', target: { storage: 's3', endpoint: s3.endpoint, bucket: s3.bucket } });
    await page.waitForURL(`${server.base}/#/admin/storage/moves/${move.id}`);

    // Watch the page as the copy runs: copied/total as it shows them, until done.
    const seen: { state: string; copied: string }[] = [];
    const end = Date.now() + 120_000;
    let shotWhileCopying = false;
    for (;;) {
      const state = (await page.getByTestId('move-state').textContent({ timeout: 10_000 }))!.trim();
      const copied = (await page.getByTestId('move-copied').textContent())!.replace(/\s+/g, ' ').trim();
      if (seen.at(-1)?.copied !== copied || seen.at(-1)?.state !== state) seen.push({ state, copied });
      if (state !== 'copying') break;
      // one picture mid-copy, once the page has a rate to show (two polls apart)
      if (!shotWhileCopying && (await page.getByText(/files\/s$/).count())) {
        await screenshot(page, 'storage-move-copying');
        shotWhileCopying = true;
      }
      if (Date.now() > end) throw new Error(`the move did not end: ${JSON.stringify(seen)}`);
      await page.waitForTimeout(100);
    }
    expect(seen.at(-1), JSON.stringify(seen)).toEqual({ state: 'done', copied: `${FILES} / ${FILES}` });
    // live: at least one reading while it copied, with the total known and not all copied yet
    const during = seen.filter((s) => s.state === 'copying').map((s) => Number(s.copied.split(' / ')[0]));
    expect(during.length, JSON.stringify(seen)).toBeGreaterThan(0);
    expect(seen.filter((s) => s.state === 'copying').every((s) => s.copied.endsWith(`/ ${FILES}`)), JSON.stringify(seen)).toBe(true);
    expect(Math.min(...during)).toBeLessThan(FILES);
    await expect(page.getByText('Cancel the move').count()).resolves.toBe(0);
    await expect(page.getByText(`to s3 · ${s3.endpoint} / ${s3.bucket}`).count()).resolves.toBe(1);
    // after the switch the old store is emptied; the page keeps polling until it says so
    await page.getByTestId('move-old-removed').getByText(`emptied (${FILES} files removed)`).waitFor({ timeout: 60_000 });
    await screenshot(page, 'storage-move');

    // the storage settings now name the new store and link the move that got it there
    await page.getByRole('link', { name: 'Storage settings' }).click();
    const status = page.getByTestId('storage-status');
    await status.getByText(`s3 · ${s3.endpoint}/${s3.bucket}`).waitFor();
    const last = status.getByRole('link', { name: `done · ${FILES} of ${FILES} files` });
    await expect(last.getAttribute('href')).resolves.toBe(`#/admin/storage/moves/${move.id}`);
    expect(await setting('storage')).toMatchObject({ value: 's3' });
    // a file still downloads, from the new store
    const r = await fetch(`${server.base}/raw/files/f/7.txt`, { headers: { Authorization: basicAuth('root', 'correct horse battery') } });
    expect(await r.text()).toBe('file 7\n');
  }, 240_000);

  it('cancels a running move after a confirmation, keeping the store in use', async () => {
    const back = mkdtempSync(join(tmpdir(), 'trove-ui-blobs-back-'));
    try {
      const page = await adminPage();
      await page.goto(`${server.base}/#/admin/settings?group=storage`);
      await page.locator('[data-key="storage"]').getByLabel('Blob store', { exact: true }).selectOption('fs');
      await page.locator('[data-key="fs.root"]').getByLabel('Blob directory', { exact: true }).fill(back);
      await page.getByRole('button', { name: 'Save 2 changes' }).click();
      await page.waitForURL(/#\/admin\/storage\/moves\//);
      await page.getByRole('button', { name: 'Cancel the move' }).click();
      await page.getByRole('button', { name: 'Cancel: keep using the old store' }).click();
      await page.getByTestId('move-state').getByText('cancelled').waitFor({ timeout: 60_000 });
      await expect(page.getByRole('button', { name: 'Cancel the move' }).count()).resolves.toBe(0);
      expect(await setting('storage')).toMatchObject({ value: 's3' });
      await page.getByRole('link', { name: 'Storage settings' }).click();
      await page.getByTestId('storage-status').getByText(`s3 · ${s3.endpoint}/${s3.bucket}`).waitFor();
      await page.getByTestId('storage-status').getByRole('link', { name: /^cancelled · / }).waitFor();
      const r = await fetch(`${server.base}/raw/files/f/9.txt`, { headers: { Authorization: basicAuth('root', 'correct horse battery') } });
      expect(await r.text()).toBe('file 9\n');
    } finally {
      rmSync(back, { recursive: true, force: true });
    }
  }, 120_000);
});
