import { afterEach, describe, expect, it } from 'vitest';
import { auth, coreServer, json } from './helpers.js';
import type { TestServer } from '../src/testing/server.js';

let s: TestServer;
afterEach(() => s?.close());

const patch = (body: string) => fetch(`${s.url}/api/settings`, { method: 'PATCH', headers: json('adminpw'), body });
const item = (body: any, key: string) => body.groups.flatMap((g: any) => g.settings).find((i: any) => i.key === key);

describe('settings values are bounded and keys are only settings', () => {
  it('answers out-of-range durations and integers with 400 {error, fields} and saves nothing', async () => {
    s = await coreServer();
    for (const [key, value] of [
      ['presign_ttl', '99999999999999999h'],
      ['max_upload_bytes', 2 ** 52],
      ['max_json_bytes', 2 ** 40],
    ] as const) {
      const r = await patch(JSON.stringify({ [key]: value }));
      expect(r.status, key).toBe(400);
      const body = await r.json();
      expect(typeof body.error).toBe('string');
      expect(Object.keys(body.fields), key).toEqual([key]);
    }
    const after = await (await fetch(`${s.url}/api/settings`, { headers: auth('adminpw') })).json();
    expect(item(after, 'presign_ttl').source).toBe('default');
    expect(item(after, 'max_upload_bytes').source).toBe('default');
  });

  for (const key of ['__proto__', 'constructor', 'toString']) {
    it(`answers ${key} like any other unknown key: 400 with fields`, async () => {
      s = await coreServer();
      const r = await patch(`{"${key}": {"max_json_bytes": 1}, "log.level": "debug"}`);
      expect(r.status).toBe(400);
      const body = await r.json();
      expect(Object.keys(body.fields)).toEqual([key]);
      expect(body.fields[key]).toBe('unknown setting');
      const after = await (await fetch(`${s.url}/api/settings`, { headers: auth('adminpw') })).json();
      expect(item(after, 'log.level').source).toBe('default');
    });
  }
});
