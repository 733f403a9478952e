import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import type { TestServer } from '@trove/core/testing/server';
import { basic, debServer, makeDeb, settled, upload, work } from './helpers.js';

const run = promisify(execFile);
/** The apt recipe vendored in scripts/clients (private APT_CONFIG, nothing of the host's apt touched). */
const APT_CLIENT = fileURLToPath(new URL('../../../scripts/clients/apt-client.sh', import.meta.url));

let s: TestServer;
afterEach(() => s?.close());

/** Real apt-get update + download in a private apt root; resolves with stdout/stderr and the exit code. */
async function apt(repo: string, dist: string, pkg: string, creds?: [string, string], env: Record<string, string> = {}) {
  const out = mkdtempSync(join(work, 'apt-out-'));
  const args = [s.url, repo, dist, 'main', `${s.url}/keys/debian.asc`, pkg, ...(creds ?? [])];
  try {
    const r = await run(APT_CLIENT, args, { env: { ...process.env, OUT_DIR: out, ...env }, timeout: 60_000 });
    return { code: 0, stdout: r.stdout.trim(), stderr: r.stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? 1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

describe('real apt clients', () => {
  it('installs from an anonymous repository signed with the generated key, and verifies it again after a key rotation', async () => {
    s = await debServer({ fixtureKey: false });
    const lib = makeDeb({ name: 'libgreet1', version: '2.0-1', arch: 'amd64', compression: 'gzip', source: 'greet' });
    const app = makeDeb({ name: 'greet', version: '2.0-1', arch: 'amd64', depends: 'libgreet1 (>= 2.0), greet-data' });
    const data = makeDeb({ name: 'greet-data', version: '2.0-1', arch: 'all', compression: 'zstd' });
    for (const f of [lib, app, data]) expect((await upload(s, 'apt', 'stable', 'main', f)).status).toBe(201);
    await settled(s, 'apt');

    let r = await apt('apt', 'stable', 'greet', undefined, { INSTALL: '1' });
    expect(r.stderr).not.toMatch(/^(W|E):/m);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/greet_2\.0-1_amd64\.deb$/);
    expect(readFileSync(r.stdout).equals(readFileSync(app))).toBe(true);
    expect(r.stderr).toMatch(/Setting up greet-data \(2\.0-1\)/); // the `all` dependency came from the amd64 index

    const before = (await (await fetch(`${s.url}/api/settings/signing-key`, { headers: { Authorization: basic('admin') } })).json()).fingerprint;
    const rotated = await fetch(`${s.url}/api/settings/signing-key`, { method: 'POST', headers: { Authorization: basic('admin'), 'Content-Type': 'application/json' }, body: '{}' });
    expect(rotated.status).toBe(200);
    expect((await rotated.json()).fingerprint).not.toBe(before);
    await settled(s, 'apt');
    r = await apt('apt', 'stable', 'greet');
    expect(r.code, r.stderr).toBe(0);
  });

  it('reads a private repository with credentials from auth.conf and is refused without them', async () => {
    s = await debServer();
    expect((await upload(s, 'private', 'jammy', 'main', makeDeb({ name: 'secret-tool', version: '1.0', arch: 'arm64' }))).status).toBe(201);
    expect((await upload(s, 'private', 'jammy', 'main', makeDeb({ name: 'secret-tool', version: '1.0', arch: 'amd64' }))).status).toBe(201);
    await settled(s, 'private');
    let r = await apt('private', 'jammy', 'secret-tool', ['alice', 'alice']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/secret-tool_1\.0_amd64\.deb$/);
    r = await apt('private', 'jammy', 'secret-tool', ['alice', 'wrong']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/401\s+Unauthorized/);
  });

  it('refuses a tampered Release with BADSIG', async () => {
    s = await debServer();
    expect((await upload(s, 'apt', 'stable', 'main', makeDeb({ name: 'tamper-me', version: '1.0' }))).status).toBe(201);
    await settled(s, 'apt');
    expect((await apt('apt', 'stable', 'tamper-me')).code).toBe(0);
    // Change a signed line of InRelease and Release behind the server's back.
    const sql = (s.ctx.db as any).$client;
    for (const path of ['InRelease', 'Release']) {
      const row = sql.prepare(`SELECT b.sha256, b.data FROM deb_files f JOIN deb_blobs b ON b.sha256 = f.sha256 WHERE f.path = ? ORDER BY f.generation DESC LIMIT 1`).get(path);
      sql.prepare('UPDATE deb_blobs SET data = ? WHERE sha256 = ?').run(Buffer.from(row.data.toString().replace('Label: apt', 'Label: evil')), row.sha256);
    }
    const r = await apt('apt', 'stable', 'tamper-me');
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/BADSIG/);
  });
});
