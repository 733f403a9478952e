import { afterEach, describe, expect, it } from 'vitest';
import { api, ROOT_PASSWORD, startAccounts, type Accounts } from './harness.js';

let h: Accounts | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('session lifetimes are bounded', () => {
  it('refuses session_ttl past a year with 400 {error, fields}, and sign-in keeps working', async () => {
    h = await startAccounts();
    for (const value of ['99999999999999999h', '8761h']) {
      const r = await h.asRoot('/api/settings', { method: 'PATCH', body: { session_ttl: value } });
      expect(r.status, value).toBe(400);
      expect(Object.keys(r.body.fields)).toEqual(['session_ttl']);
    }
    expect((await h.asRoot('/api/settings', { method: 'PATCH', body: { session_ttl: '8760h' } })).status).toBe(200);
    expect((await api(h, '/api/auth/login', { body: { username: 'root', password: ROOT_PASSWORD } })).status).toBe(200);
  });
});
