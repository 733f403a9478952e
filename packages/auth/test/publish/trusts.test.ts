import * as jose from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import { call, startHarness, type Harness } from './harness.js';

let h: Harness;
afterEach(() => h?.close());

async function jwks() {
  const { publicKey } = await jose.generateKeyPair('ES256');
  return JSON.stringify({ keys: [{ ...(await jose.exportJWK(publicKey)), kid: 'k', alg: 'ES256' }] });
}

const base = async (name: string) => ({
  name,
  issuer: 'https://gitlab.example',
  audience: 'https://trove.example',
  claims: { project_path: ['acme/widgets'] },
  jwks: await jwks(),
  repos: ['files'],
});

describe('trust policy routes', () => {
  it('create, list in name order, get, patch only the fields sent, delete', async () => {
    h = await startHarness();
    const b = await call(h, '/api/publish/trusts', { auth: 'root@session', body: await base('zeta') });
    expect(b.status).toBe(201);
    expect(b.body).toMatchObject({ name: 'zeta', issuer: 'https://gitlab.example', repos: ['files'], disabled: false, claims: { project_path: ['acme/widgets'] } });
    expect(typeof b.body.id).toBe('string');
    const a = await call(h, '/api/publish/trusts', { auth: 'root@session', body: { ...(await base('alpha')), disabled: true } });
    expect(a.body.disabled).toBe(true);
    const list = await call(h, '/api/publish/trusts', { auth: 'root' });
    expect(list.body.items.map((t: any) => t.name)).toEqual(['alpha', 'zeta']);
    expect(list.body.next).toBe('');

    const p = await call(h, `/api/publish/trusts/${b.body.id}`, { method: 'PATCH', auth: 'root@session', body: { repos: ['files', 'other'] } });
    expect(p.status).toBe(200);
    expect(p.body).toEqual({ ...b.body, repos: ['files', 'other'], updated_at: p.body.updated_at });
    expect((await call(h, `/api/publish/trusts/${b.body.id}`, { auth: 'root' })).body.repos).toEqual(['files', 'other']);

    expect((await call(h, `/api/publish/trusts/${b.body.id}`, { method: 'DELETE', auth: 'root@session' })).status).toBe(204);
    expect((await call(h, `/api/publish/trusts/${b.body.id}`, { auth: 'root' })).status).toBe(404);
    expect((await call(h, `/api/publish/trusts/${b.body.id}`, { method: 'PATCH', auth: 'root@session', body: {} })).status).toBe(404);
    expect((await call(h, `/api/publish/trusts/${b.body.id}`, { method: 'DELETE', auth: 'root@session' })).status).toBe(404);

    // each change is in the admin audit log, by name and never with the key set
    const audit = { body: { items: h.ctx.audit.page({ action: 'trust', limit: 50 }).items.map((r) => ({ ...r, detail: JSON.parse(r.detail) })) } };
    expect(audit.body.items.map((e: any) => [e.action, e.target, e.actor])).toEqual([
      ['trust.delete', 'zeta', 'root'],
      ['trust.update', 'zeta', 'root'],
      ['trust.create', 'alpha', 'root'],
      ['trust.create', 'zeta', 'root'],
    ]);
    expect(audit.body.items[1].detail).toMatchObject({ fields: ['repos'], closed_sessions: 0 });
    expect(JSON.stringify(audit.body)).not.toContain('"kty"');
  });

  it('is admin only', async () => {
    h = await startHarness();
    const t = await call(h, '/api/publish/trusts', { auth: 'root@session', body: await base('x') });
    expect((await call(h, '/api/publish/trusts', { auth: 'alice' })).status).toBe(403);
    expect((await call(h, '/api/publish/trusts', { auth: 'alice@session', body: await base('y') })).status).toBe(403);
    expect((await call(h, `/api/publish/trusts/${t.body.id}`, { auth: 'alice' })).status).toBe(403);
    expect((await call(h, `/api/publish/trusts/${t.body.id}`, { method: 'DELETE', auth: 'alice@session' })).status).toBe(403);
    expect((await call(h, '/api/publish/trusts')).status).toBe(401);
    expect((await call(h, '/api/publish/trusts', { auth: 'root@read', body: await base('z') })).status).toBe(403);
  });

  it('validates the input shape; 409 for a duplicate name', async () => {
    h = await startHarness();
    const ok = await base('ok');
    expect((await call(h, '/api/publish/trusts', { auth: 'root@session', body: ok })).status).toBe(201);
    expect((await call(h, '/api/publish/trusts', { auth: 'root@session', body: ok })).status).toBe(409);
    const { privateKey } = await jose.generateKeyPair('ES256', { extractable: true });
    const bad: Record<string, unknown>[] = [
      { name: '' },
      { issuer: 7 },
      { audience: '' },
      { claims: [] },
      { claims: {} },
      { claims: { repository: [] } },
      { claims: { repository: 'acme/widgets' } },
      { jwks: 'not json' },
      { jwks: '{"keys":[]}' },
      { jwks: JSON.stringify({ keys: [{ kty: 'oct', k: 'c2VjcmV0' }] }) },
      { jwks: JSON.stringify({ keys: [await jose.exportJWK(privateKey)] }) },
      { jwks: 'ftp://keys.example/jwks' },
      { jwks: 'http://keys.example/jwks' },
      { jwks: 'https://ci:hunter2@keys.example/jwks' },
      { repos: 'files' },
      { repos: ['../x'] },
      { disabled: 'yes' },
    ];
    for (const change of bad) {
      const r = await call(h, '/api/publish/trusts', { auth: 'root@session', body: { ...ok, name: 'n', ...change } });
      expect(r.status, JSON.stringify(change)).toBe(400);
    }
    const { jwks: _j, ...missing } = ok;
    expect((await call(h, '/api/publish/trusts', { auth: 'root@session', body: { ...missing, name: 'm' } })).status).toBe(400);
    expect((await call(h, '/api/publish/trusts', { auth: 'root@session', body: { ...ok, name: 'u', jwks: 'https://keys.example/jwks' } })).status).toBe(201);
  });
});
