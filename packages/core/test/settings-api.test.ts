import { afterEach, describe, expect, it } from 'vitest';
import { auth, coreServer, json } from './helpers.js';
import type { TestServer } from '../src/testing/server.js';

let s: TestServer;
afterEach(() => s?.close());

const item = (body: any, key: string) => body.groups.flatMap((g: any) => g.settings).find((i: any) => i.key === key);

describe('settings API', () => {
  it('lists every setting with its source, type and lock state', async () => {
    s = await coreServer({ TR_LOG_LEVEL: 'warn' });
    const r = await fetch(`${s.url}/api/settings`, { headers: auth('adminpw') });
    expect(r.status).toBe(200);
    const body = await r.json();
    expect(body.groups.map((g: any) => g.name)).toEqual(['general', 'limits', 'storage']);
    expect(item(body, 'log.level')).toMatchObject({ value: 'warn', source: 'env', locked: true, read_only: true, env: 'TR_LOG_LEVEL', options: ['debug', 'info', 'warn', 'error'] });
    expect(item(body, 'max_upload_bytes')).toMatchObject({ type: 'int', value: 2147483648, source: 'default', locked: false });
    expect(item(body, 's3.secret_access_key')).toMatchObject({ secret: true, value: { set: false } });
  });

  it('is for admins only', async () => {
    s = await coreServer();
    expect((await fetch(`${s.url}/api/settings`)).status).toBe(401);
    expect((await fetch(`${s.url}/api/settings`, { headers: auth('alicepw') })).status).toBe(403);
  });

  it('saves, applies live and resets with null', async () => {
    s = await coreServer();
    let r = await fetch(`${s.url}/api/settings`, { method: 'PATCH', headers: json('adminpw'), body: JSON.stringify({ max_json_bytes: 2048, base_url: 'https://repo.example.com/' }) });
    expect(r.status).toBe(200);
    const body = await r.json();
    expect(item(body, 'max_json_bytes')).toMatchObject({ value: 2048, source: 'db' });
    expect(item(body, 'base_url').value).toBe('https://repo.example.com');
    // the new JSON limit applies to the next request without a restart
    r = await fetch(`${s.url}/api/settings`, { method: 'PATCH', headers: json('adminpw'), body: JSON.stringify({ base_url: 'x'.repeat(3000) }) });
    expect(r.status).toBe(413);
    r = await fetch(`${s.url}/api/settings`, { method: 'PATCH', headers: json('adminpw'), body: JSON.stringify({ max_json_bytes: null }) });
    expect(item(await r.json(), 'max_json_bytes')).toMatchObject({ value: 1048576, source: 'default' });
  });

  it('answers 400 with fields for invalid values and saves nothing', async () => {
    s = await coreServer();
    const r = await fetch(`${s.url}/api/settings`, {
      method: 'PATCH',
      headers: json('adminpw'),
      body: JSON.stringify({ base_url: 'ftp://x', max_upload_bytes: -1, 'log.level': 'loud', nope: 1, presign_ttl: '1d', 'fs.root': '/tmp/x' }),
    });
    expect(r.status).toBe(400);
    const body = await r.json();
    expect(body.error).toBeTruthy();
    expect(Object.keys(body.fields).sort()).toEqual(['base_url', 'log.level', 'max_upload_bytes', 'nope', 'presign_ttl']);
    const after = await (await fetch(`${s.url}/api/settings`, { headers: auth('adminpw') })).json();
    expect(item(after, 'fs.root').value).toBe('');
  });

  it('refuses an S3 endpoint carrying credentials: the endpoint is shown and logged, the keys are secrets', async () => {
    s = await coreServer();
    const r = await fetch(`${s.url}/api/settings`, { method: 'PATCH', headers: json('adminpw'), body: JSON.stringify({ 's3.endpoint': 'https://AKIA:hunter2@s3.example.test' }) });
    expect(r.status).toBe(400);
    expect((await r.json()).fields['s3.endpoint']).toMatch(/must not carry credentials/);
  });

  it('refuses a base URL carrying credentials, a query or a fragment: it is shown to anyone in snippets and links', async () => {
    s = await coreServer();
    for (const base_url of ['https://proxy:hunter2@repo.example', 'https://repo.example/?x=1', 'https://repo.example/#top']) {
      const r = await fetch(`${s.url}/api/settings`, { method: 'PATCH', headers: json('adminpw'), body: JSON.stringify({ base_url }) });
      expect(r.status, base_url).toBe(400);
      expect((await r.json()).fields.base_url, base_url).toMatch(/must not carry/);
    }
  });

  it('checks rules across keys', async () => {
    s = await coreServer();
    const r = await fetch(`${s.url}/api/settings`, { method: 'PATCH', headers: json('adminpw'), body: JSON.stringify({ storage: 's3' }) });
    expect(r.status).toBe(400);
    expect(Object.keys((await r.json()).fields)).toContain('s3.bucket');
  });

  it('answers 409 when an env-locked key would change, and accepts the same value', async () => {
    s = await coreServer({ TR_MAX_UPLOAD_BYTES: '1000' });
    let r = await fetch(`${s.url}/api/settings`, { method: 'PATCH', headers: json('adminpw'), body: JSON.stringify({ max_upload_bytes: 2000 }) });
    expect(r.status).toBe(409);
    r = await fetch(`${s.url}/api/settings`, { method: 'PATCH', headers: json('adminpw'), body: JSON.stringify({ max_upload_bytes: 1000 }) });
    expect(r.status).toBe(200);
  });

  it('never returns a secret and keeps it when sent as an empty string', async () => {
    s = await coreServer();
    let r = await fetch(`${s.url}/api/settings`, { method: 'PATCH', headers: json('adminpw'), body: JSON.stringify({ 's3.secret_access_key': 'hunter2-very-secret' }) });
    let text = await r.text();
    expect(text).not.toContain('hunter2');
    expect(item(JSON.parse(text), 's3.secret_access_key').value).toEqual({ set: true });
    r = await fetch(`${s.url}/api/settings`, { method: 'PATCH', headers: json('adminpw'), body: JSON.stringify({ 's3.secret_access_key': '' }) });
    text = await r.text();
    expect(item(JSON.parse(text), 's3.secret_access_key').value).toEqual({ set: true });
    expect(s.ctx.settings.string('s3.secret_access_key')).toBe('hunter2-very-secret');
  });

  it('refuses cross-origin browser writes', async () => {
    s = await coreServer();
    const r = await fetch(`${s.url}/api/settings`, {
      method: 'PATCH',
      headers: { ...json('adminpw'), Origin: 'https://evil.example', 'Sec-Fetch-Site': 'cross-site' },
      body: JSON.stringify({ max_json_bytes: 5000 }),
    });
    expect(r.status).toBe(403);
    expect(s.ctx.settings.int('max_json_bytes')).toBe(1048576);
  });

  it('answers malformed JSON with 400', async () => {
    s = await coreServer();
    const r = await fetch(`${s.url}/api/settings`, { method: 'PATCH', headers: json('adminpw'), body: '{"max_json_bytes":' });
    expect(r.status).toBe(400);
    expect((await r.json()).error).toMatch(/JSON/);
  });
});
