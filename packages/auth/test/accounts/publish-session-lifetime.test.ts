import { afterEach, describe, expect, it } from 'vitest';
import { basic, startAccounts, type Accounts } from './harness.js';

let h: Accounts | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** alice (TOTP, write on the private repo `files`) opens a manual publish session and uploads a file. */
async function aliceWithSession(h: Accounts) {
  const { client, totp } = await h.withTotp('alice');
  await h.asRoot('/api/repos', { body: { name: 'files', format: 'raw' } });
  await h.asRoot('/api/repos/files/permissions/alice', { method: 'PUT', body: { level: 'write' } });
  const s = await client.call('/api/publish/sessions/manual', { body: { repo: 'files', totp_code: totp.code(1) } });
  expect(s.status).toBe(201);
  const token = h.secret(s.body.token as string);
  const put = await fetch(`${h.url}/raw/files/a.txt`, { method: 'PUT', body: 'hello', headers: { authorization: basic('ci', token) } });
  expect(put.status).toBe(201);
  return token;
}

const read = (h: Accounts, token: string) => fetch(`${h.url}/raw/files/a.txt`, { headers: { authorization: basic('ci', token) } });

describe('publish sessions and their user', () => {
  it('ends a user\'s open publish sessions when the user is disabled; re-enabling does not bring them back', async () => {
    h = await startAccounts();
    const token = await aliceWithSession(h);
    expect((await h.asRoot('/api/users/alice', { method: 'PATCH', body: { disabled: true } })).status).toBe(200);
    expect((await read(h, token)).status).toBe(401);
    expect((await h.asRoot('/api/users/alice', { method: 'PATCH', body: { disabled: false } })).status).toBe(200);
    expect((await read(h, token)).status).toBe(401);
    const put = await fetch(`${h.url}/raw/files/b.txt`, { method: 'PUT', body: 'x', headers: { authorization: basic('ci', token) } });
    expect(put.status).toBe(401);
    const log = await h.asRoot('/api/publish/log');
    expect(log.body.items[0]).toMatchObject({ state: 'closed', closed_reason: 'user disabled' });
  });

  it('lets a manual session read only while its user still holds read on the repository', async () => {
    h = await startAccounts();
    const token = await aliceWithSession(h);
    expect((await read(h, token)).status).toBe(200);
    expect((await h.asRoot('/api/repos/files/permissions/alice', { method: 'DELETE' })).status).toBe(204);
    const r = await read(h, token);
    expect(r.status).toBe(403);
    expect((await r.json()).error).toMatch(/no longer holds read/);
  });
});
