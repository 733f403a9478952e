import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '@trove/core/testing/server';
import { authModule } from '../../src/index.js';
import { UiSessionStore } from '../../src/sessions/ui-sessions.js';

let s: TestServer;
afterEach(() => s?.close());

const basic = (u: string, p: string) => ({ Authorization: 'Basic ' + Buffer.from(`${u}:${p}`).toString('base64'), 'Content-Type': 'application/json' });
/** Admin changes need a UI session (a Basic password only reads): root's, opened in the session store. */
let root: Record<string, string>;
/** A full UI session of `username`, as if they had signed in with their second factor. */
const sessionOf = (username: string) => {
  const { token } = new UiSessionStore(s.ctx).create(s.ctx.users.byName(username)!, false);
  return { Cookie: `tr_session=${token}`, 'Content-Type': 'application/json' };
};

async function server() {
  s = await startTestServer({ modules: [authModule({ bootstrapAdmin: { username: 'root', password: 'root-password' } })] });
  root = sessionOf('root');
  return s;
}

describe('users and passwords', () => {
  it('lets an admin create users who then sign in with their password', async () => {
    await server();
    let r = await fetch(`${s.url}/api/users`, { method: 'POST', headers: root, body: JSON.stringify({ username: 'alice', password: 'alice-password', email: 'a@example.test' }) });
    expect(r.status).toBe(201);
    const created = await r.json();
    expect(created).toMatchObject({ username: 'alice', email: 'a@example.test', is_admin: false, kind: 'local', second_factor_required: true });
    expect(JSON.stringify(created)).not.toMatch(/password|scrypt/);
    r = await fetch(`${s.url}/api/me`, { headers: basic('alice', 'alice-password') });
    expect((await r.json()).username).toBe('alice');
    expect((await fetch(`${s.url}/api/me`, { headers: basic('alice', 'nope-nope') })).status).toBe(401);
    expect((await fetch(`${s.url}/api/users`, { headers: basic('alice', 'alice-password') })).status).toBe(403);
    const list = await (await fetch(`${s.url}/api/users?limit=1`, { headers: root })).json();
    expect(list.items).toHaveLength(1);
    expect(list.next).toBeTruthy();
  });

  it('refuses weak passwords and duplicate names', async () => {
    await server();
    expect((await fetch(`${s.url}/api/users`, { method: 'POST', headers: root, body: JSON.stringify({ username: 'bob', password: 'short' }) })).status).toBe(400);
    expect((await fetch(`${s.url}/api/users`, { method: 'POST', headers: root, body: JSON.stringify({ username: 'root', password: 'long enough' }) })).status).toBe(409);
  });

  it('stops a disabled user at once, even with a remembered password', async () => {
    await server();
    await fetch(`${s.url}/api/users`, { method: 'POST', headers: root, body: JSON.stringify({ username: 'carol', password: 'carol-password' }) });
    expect((await fetch(`${s.url}/api/me`, { headers: basic('carol', 'carol-password') })).status).toBe(200);
    expect((await fetch(`${s.url}/api/users/carol`, { method: 'PATCH', headers: root, body: JSON.stringify({ disabled: true }) })).status).toBe(200);
    expect((await fetch(`${s.url}/api/me`, { headers: basic('carol', 'carol-password') })).status).toBe(401);
  });

  it('lets users change their own password only with the current one', async () => {
    await server();
    await fetch(`${s.url}/api/users`, { method: 'POST', headers: root, body: JSON.stringify({ username: 'dave', password: 'dave-password' }) });
    const daveBasic = basic('dave', 'dave-password');
    // The password alone only reads: changing it needs the signed-in session.
    expect((await fetch(`${s.url}/api/users/dave`, { method: 'PATCH', headers: daveBasic, body: JSON.stringify({ password: 'new-password-1', current_password: 'dave-password' }) })).status).toBe(403);
    const dave = sessionOf('dave');
    expect((await fetch(`${s.url}/api/users/dave`, { method: 'PATCH', headers: dave, body: JSON.stringify({ password: 'new-password-1', current_password: 'wrong' }) })).status).toBe(401);
    expect((await fetch(`${s.url}/api/users/dave`, { method: 'PATCH', headers: dave, body: JSON.stringify({ is_admin: true }) })).status).toBe(403);
    expect((await fetch(`${s.url}/api/users/dave`, { method: 'PATCH', headers: dave, body: JSON.stringify({ password: 'new-password-1', current_password: 'dave-password' }) })).status).toBe(200);
    expect((await fetch(`${s.url}/api/me`, { headers: daveBasic })).status).toBe(401);
    expect((await fetch(`${s.url}/api/me`, { headers: basic('dave', 'new-password-1') })).status).toBe(200);
  });

  it('asks an admin for their current password too when they change their own, and keeps the end of the sign-in', async () => {
    await server();
    const body = (current: string) => JSON.stringify({ password: 'root-password-2', current_password: current });
    expect((await fetch(`${s.url}/api/users/root`, { method: 'PATCH', headers: root, body: JSON.stringify({ password: 'root-password-2' }) })).status).toBe(401);
    expect((await fetch(`${s.url}/api/users/root`, { method: 'PATCH', headers: root, body: body('totally-wrong') })).status).toBe(401);
    const before = new UiSessionStore(s.ctx).resolve(root.Cookie!.slice('tr_session='.length))!.session.expiresAt;
    const r = await fetch(`${s.url}/api/users/root`, { method: 'PATCH', headers: root, body: body('root-password') });
    expect(r.status).toBe(200);
    // The caller stays signed in with a new cookie, but the sign-in ends when the old one would have.
    const cookie = r.headers.get('set-cookie')!;
    const token = /tr_session=([^;]+)/.exec(cookie)![1]!;
    expect(new UiSessionStore(s.ctx).resolve(token)!.session.expiresAt.getTime()).toBe(before.getTime());
    // An admin setting another user's password needs no current password of theirs.
    await fetch(`${s.url}/api/users`, { method: 'POST', headers: sessionOf('root'), body: JSON.stringify({ username: 'erin', password: 'erin-password' }) });
    expect((await fetch(`${s.url}/api/users/erin`, { method: 'PATCH', headers: sessionOf('root'), body: JSON.stringify({ password: 'erin-password-2' }) })).status).toBe(200);
  });
});
