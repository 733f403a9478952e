import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as openpgp from 'openpgp';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '@trove/core/testing/server';
import { debianFormat } from '../src/index.js';
import { debServer, get, makeDeb, settled, upload, work } from './helpers.js';

let s: TestServer | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

async function encryptedKeyFiles(passphrase: string) {
  const { privateKey } = await openpgp.generateKey({ type: 'ecc', curve: 'ed25519Legacy', userIDs: [{ name: 'Encrypted key' }], passphrase, format: 'armored' } as any);
  const stamp = Math.random().toString(36).slice(2);
  const keyFile = join(work, `encrypted-${stamp}.asc`);
  const passFile = join(work, `passphrase-${stamp}.txt`);
  writeFileSync(keyFile, privateKey);
  writeFileSync(passFile, passphrase + '\n');
  return { keyFile, passFile, privateKey };
}

describe('debian signing from an encrypted key file', () => {
  it('decrypts gpg.key_file with gpg.passphrase_file and signs InRelease with it', async () => {
    const { keyFile, passFile, privateKey } = await encryptedKeyFiles('correct horse battery staple');
    s = await debServer({ env: { TR_GPG_KEY_FILE: keyFile, TR_GPG_PASSPHRASE_FILE: passFile } });
    expect((await upload(s, 'apt', 'stable', 'main', makeDeb({ name: 'signed-by-file', version: '1.0' }))).status).toBe(201);
    await settled(s, 'apt');

    const served = await openpgp.readKey({ armoredKey: await (await get(s, 'keys/debian.asc')).text() });
    const mine = await openpgp.readPrivateKey({ armoredKey: privateKey });
    expect(served.getFingerprint()).toBe(mine.getFingerprint());
    const message = await openpgp.readCleartextMessage({ cleartextMessage: await (await get(s, 'debian/apt/dists/stable/InRelease')).text() });
    const { signatures } = await openpgp.verify({ message, verificationKeys: served });
    await expect(signatures[0]!.verified).resolves.toBe(true);
    expect(message.getText()).toContain('Suite: stable');
  });

  it('signs every distribution again when it starts with another key file than the one that signed them', async () => {
    const dataDir = mkdtempSync(join(work, 'rotate-'));
    const first = await encryptedKeyFiles('first');
    s = await debServer({ dataDir, env: { TR_GPG_KEY_FILE: first.keyFile, TR_GPG_PASSPHRASE_FILE: first.passFile } });
    expect((await upload(s, 'apt', 'stable', 'main', makeDeb({ name: 'rotated', version: '1.0' }))).status).toBe(201);
    await settled(s, 'apt');
    await s.close();

    const second = await encryptedKeyFiles('second');
    s = await debServer({ dataDir, env: { TR_GPG_KEY_FILE: second.keyFile, TR_GPG_PASSPHRASE_FILE: second.passFile } });
    const served = await openpgp.readKey({ armoredKey: await (await get(s, 'keys/debian.asc')).text() });
    expect(served.getFingerprint()).toBe((await openpgp.readPrivateKey({ armoredKey: second.privateKey })).getFingerprint());
    const verifies = async () => {
      const message = await openpgp.readCleartextMessage({ cleartextMessage: await (await get(s!, 'debian/apt/dists/stable/InRelease')).text() });
      const { signatures } = await openpgp.verify({ message, verificationKeys: served });
      return signatures[0]!.verified.then(() => true, () => false);
    };
    for (const until = Date.now() + 10_000; !(await verifies()); await new Promise((r) => setTimeout(r, 50))) {
      if (Date.now() > until) throw new Error('InRelease was never signed again with the new key');
    }
  });

  it('refuses to start with a wrong passphrase, or with an encrypted key and no passphrase file', async () => {
    const { keyFile } = await encryptedKeyFiles('the right one');
    const wrong = join(work, 'wrong-passphrase.txt');
    writeFileSync(wrong, 'not the right one\n');
    await expect(startTestServer({ modules: [debianFormat], env: { TR_GPG_KEY_FILE: keyFile, TR_GPG_PASSPHRASE_FILE: wrong } })).rejects.toThrow(/passphrase/);
    await expect(startTestServer({ modules: [debianFormat], env: { TR_GPG_KEY_FILE: keyFile } })).rejects.toThrow(/passphrase/);
  });
});

describe('debian rebuild timing', () => {
  it('publishes an upload within deb.max_delay while further uploads keep postponing the debounce', async () => {
    // Alone, a 2 s debounce restarted every 300 ms would never fire while uploads go on.
    s = await debServer({ env: { TR_DEB_DEBOUNCE: '2s', TR_DEB_MAX_DELAY: '1s' } });
    const first = Date.now();
    expect((await upload(s, 'apt', 'stable', 'main', makeDeb({ name: 'first-of-many', version: '1.0' }))).status).toBe(201);
    let seenAfter: number | null = null;
    for (let i = 0; i < 20 && seenAfter === null; i++) {
      await new Promise((r) => setTimeout(r, 300));
      expect((await upload(s, 'apt', 'stable', 'main', makeDeb({ name: `later-${i}`, version: '1.0' }))).status).toBe(201);
      const packages = await get(s, 'debian/apt/dists/stable/main/binary-amd64/Packages');
      if (packages.status === 200 && /^Package: first-of-many$/m.test(await packages.text())) seenAfter = Date.now() - first;
    }
    expect(seenAfter).not.toBeNull();
    expect(seenAfter!).toBeLessThan(4000);
  });

  it('waits for deb.debounce after the last upload before rebuilding', async () => {
    s = await debServer({ env: { TR_DEB_DEBOUNCE: '1500ms', TR_DEB_MAX_DELAY: '1m' } });
    expect((await upload(s, 'apt', 'stable', 'main', makeDeb({ name: 'debounced', version: '1.0' }))).status).toBe(201);
    await new Promise((r) => setTimeout(r, 500));
    expect((await (await get(s, 'api/repos/apt/status', 'admin')).json()).pending).toBeGreaterThan(0);
    expect((await get(s, 'debian/apt/dists/stable/Release')).status).toBe(404);
    await settled(s, 'apt');
    expect(await (await get(s, 'debian/apt/dists/stable/main/binary-amd64/Packages')).text()).toMatch(/^Package: debounced$/m);
  });
});
