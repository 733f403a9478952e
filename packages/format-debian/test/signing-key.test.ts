import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as openpgp from 'openpgp';
import { afterEach, describe, expect, it } from 'vitest';
import type { CoreContext } from '@trove/core';
import { startTestServer, type TestServer } from '@trove/core/testing/server';
import { basic, staticResolver } from '@trove/core/testing/resolver';
import { debianFormat, debianState, type SigningKeysOptions } from '../src/index.js';
import { work } from './helpers.js';

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** A server whose Debian key, when none is stored, comes from `generate` (undefined: the real RSA 4096 one). */
async function server(opts: { keys?: SigningKeysOptions; dataDir?: string; masterKey?: Buffer; env?: Record<string, string> } = {}) {
  const s = await startTestServer({
    formats: [debianFormat],
    env: opts.env ?? {},
    ...(opts.dataDir ? { dataDir: opts.dataDir, masterKey: opts.masterKey } : {}),
    setup: (ctx: CoreContext) => {
      debianState(ctx, { keys: opts.keys });
      const admin = ctx.users.byName('root') ?? ctx.users.create({ username: 'root', isAdmin: true });
      ctx.credentials.resolver = staticResolver({ admin: { type: 'user', via: 'session', user: admin } });
    },
  });
  servers.push(s);
  return s;
}

const fastKey = async () =>
  (await openpgp.generateKey({ type: 'ecc', curve: 'ed25519Legacy', userIDs: [{ name: 'Test key' }], format: 'armored' } as any)).privateKey as string;

/** A generator that waits until `release()`; `fail` makes that call throw instead. */
function gatedGenerator() {
  const gates: { open: (fail: boolean) => void }[] = [];
  let calls = 0;
  const generate = () => {
    calls++;
    return new Promise<string>((resolve, reject) => {
      gates.push({ open: (fail) => (fail ? reject(new Error('entropy ran out')) : fastKey().then(resolve, reject)) });
    });
  };
  return {
    generate,
    calls: () => calls,
    release: (fail = false) => gates.shift()!.open(fail),
  };
}

const keyAsc = (s: TestServer) => fetch(`${s.url}/keys/debian.asc`);
const keyApi = (s: TestServer) => fetch(`${s.url}/api/settings/signing-key`, { headers: { Authorization: basic('admin') } });
async function storedKeySet(s: TestServer): Promise<boolean> {
  const settings = await (await fetch(`${s.url}/api/settings`, { headers: { Authorization: basic('admin') } })).json();
  return settings.groups.flatMap((g: any) => g.settings).find((i: any) => i.key === 'signing.key').value.set;
}
const settledWithin = (p: Promise<unknown>, ms: number) =>
  Promise.race([p.then(() => true, () => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms))]);

describe('signing key generation', () => {
  it('answers /healthz before the first key exists; concurrent key requests wait for one generation and get the same key', async () => {
    const gen = gatedGenerator();
    const s = await server({ keys: { generate: gen.generate } });
    expect(gen.calls()).toBe(1); // started in the background at start, not on the first request
    const health = await fetch(`${s.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await storedKeySet(s)).toBe(false);

    const waiting = [keyAsc(s), keyApi(s), keyAsc(s), keyApi(s)];
    expect(await settledWithin(Promise.race(waiting), 300)).toBe(false);
    gen.release();
    const answers = await Promise.all(waiting);
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    const [asc1, api1, asc2, api2] = await Promise.all(answers.map((r) => r.text()));
    expect(asc2).toBe(asc1);
    expect(JSON.parse(api1!).public_key).toBe(asc1);
    expect(JSON.parse(api2!).public_key).toBe(asc1);
    expect(gen.calls()).toBe(1);
    expect(await storedKeySet(s)).toBe(true);
    const publicKey = await openpgp.readKey({ armoredKey: asc1! });
    expect(JSON.parse(api1!).fingerprint).toBe(publicKey.getFingerprint().toUpperCase());
    expect(publicKey.isPrivate()).toBe(false);
  });

  it('answers 503 to waiting requests when generation fails, and retries in the background until a key is stored', async () => {
    const gen = gatedGenerator();
    const s = await server({ keys: { generate: gen.generate, retryFirstMs: 50 } });
    const waiting = keyAsc(s);
    expect(await settledWithin(waiting, 200)).toBe(false);
    gen.release(true);
    const refused = await waiting;
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect((await refused.json()).error).toMatch(/signing key is not available yet.*entropy ran out/);

    // The retry comes from the server itself: no request is made until a key is stored.
    for (let i = 0; gen.calls() < 2; i++) {
      expect(i).toBeLessThan(100);
      await new Promise((r) => setTimeout(r, 20));
    }
    gen.release();
    for (let i = 0; !(await storedKeySet(s)); i++) {
      expect(i).toBeLessThan(100);
      await new Promise((r) => setTimeout(r, 20));
    }
    const key = await keyAsc(s);
    expect(key.status).toBe(200);
    expect(await key.text()).toMatch(/BEGIN PGP PUBLIC KEY BLOCK/);
    expect(gen.calls()).toBe(2);
  });

  it('stores the RSA 4096 key of a generation that a stop interrupted, and serves that key after every restart without generating another', async () => {
    const dataDir = mkdtempSync(join(work, 'restart-'));
    const masterKey = randomBytes(32);
    const first = await server({ dataDir, masterKey });
    expect(await storedKeySet(first)).toBe(false); // RSA 4096 takes seconds: still generating
    await first.close();
    servers.splice(servers.indexOf(first), 1);

    let generated = 0;
    const refuse = async () => {
      generated++;
      return fastKey();
    };
    const second = await server({ dataDir, masterKey, keys: { generate: refuse } });
    const asc = await (await keyAsc(second)).text();
    const key = await openpgp.readKey({ armoredKey: asc });
    expect(key.getAlgorithmInfo()).toMatchObject({ algorithm: 'rsaEncryptSign', bits: 4096 });
    await second.close();
    servers.splice(servers.indexOf(second), 1);

    const third = await server({ dataDir, masterKey, keys: { generate: refuse } });
    expect(await (await keyAsc(third)).text()).toBe(asc);
    expect((await (await keyApi(third)).json()).fingerprint).toBe(key.getFingerprint().toUpperCase());
    expect(generated).toBe(0);
  });

  it('refuses to start when gpg.key_file holds no private key', async () => {
    const file = join(work, 'not-a-key.asc');
    writeFileSync(file, 'this is not a key\n');
    await expect(startTestServer({ formats: [debianFormat], env: { TR_GPG_KEY_FILE: file } })).rejects.toThrow(/not an armored OpenPGP private key/);
  });
});
