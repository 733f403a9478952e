import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { removeTempDirs, tempDir, trove } from './harness.js';
import { enroll, fakeOpener, friendly, hostile, json, readBody, type Handler, type Hostile } from './hostile.js';

/** `trove login` and the key directories against stand-in servers (hostile.ts). */
const servers: Hostile[] = [];
const start = async (h: Handler) => {
  const s = await hostile(h);
  servers.push(s);
  return s;
};
afterEach(async () => {
  for (const h of servers.splice(0)) await h.close();
});
afterAll(removeTempDirs);

/** Enrollment answered with `verification_url`; every poll says the code expired. */
const enrolling = (verification_url: (base: string) => string): Handler => async (req, res, seen) => {
  await readBody(req, seen);
  if (req.url === '/api/devices/enroll') return json(res, 200, { device_code: 'dc', user_code: 'ABCD-EFGH', verification_url: verification_url(`http://${req.headers.host}`), expires_in: 600, interval: 1 });
  json(res, 400, { error: 'expired_token' });
};

describe('trove login', () => {
  it("opens only an http(s) page on the server's own origin; anything else is printed, not opened", async () => {
    for (const [page, opened] of [
      ['file:///etc/passwd?x=1&calc.exe', false],
      ['http://evil.example/#/publishing?code=ABCD-EFGH', false],
      ['javascript:alert(1)', false],
      ['SAME/#/publishing?code=ABCD-EFGH&x=1', true],
    ] as const) {
      const srv = await start(enrolling((base) => page.replace('SAME', base)));
      const expected = page.replace('SAME', srv.url);
      const opener = fakeOpener();
      const r = await trove(['login', srv.url], { configDir: tempDir(), env: opener.env, timeoutMs: 30_000 }).done;
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`open ${expected} and confirm the code ABCD-EFGH`);
      await new Promise((ok) => setTimeout(ok, 500)); // the opener runs detached
      if (opened) {
        expect(readFileSync(opener.log, 'utf8')).toBe(`${expected}\n`);
        expect(r.stderr).not.toContain('not opening');
      } else {
        expect(existsSync(opener.log), page).toBe(false);
        expect(r.stderr).toContain(`trove: not opening the approval page: it is not a page of ${srv.url}; check it before you open it yourself\n`);
      }
    }
  });

  it('keeps polling through a 5xx and a dropped connection until approved', async () => {
    let polls = 0;
    const srv = await start(async (req, res, seen) => {
      if (req.url !== '/api/devices/enroll/poll') return friendly(req, res, seen);
      await readBody(req, seen);
      polls++;
      if (polls === 1) return json(res, 400, { error: 'authorization_pending' });
      if (polls === 2) return json(res, 503, { error: 'restarting' });
      if (polls === 3) return req.socket.destroy();
      json(res, 200, { device_id: 'dev7' });
    });
    const r = await trove(['login', srv.url, '--no-browser'], { configDir: tempDir(), timeoutMs: 60_000 }).done;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`Logged in to ${srv.url} as device`);
    expect(r.stdout).toContain('(dev7)');
    expect(polls).toBe(4);
    expect(r.stderr).toContain(`trove: ${srv.url} answered 503 (restarting); still waiting for the approval\n`);
  });

  it('says a server whose enrollment answer is not a device code does not look like a Trove server', async () => {
    const answers: [string, string][] = [
      ['', 'application/json'],
      ['<!doctype html><html><body>Welcome</body></html>', 'text/html'],
      [JSON.stringify({ device_code: 'dc', user_code: 'ABCD-EFGH' }), 'application/json'],
      [JSON.stringify({ device_code: 'dc', user_code: 'ABCD-EFGH', verification_url: 'http://x/', expires_in: '600', interval: 5 }), 'application/json'],
      [JSON.stringify({ device_code: 'dc', user_code: 'ABCD-EFGH', verification_url: 'http://x/', expires_in: 600, interval: 1e10 }), 'application/json'],
    ];
    for (const [body, type] of answers) {
      const srv = await start(async (req, res, seen) => {
        await readBody(req, seen);
        res.writeHead(200, { 'content-type': type }).end(body);
      });
      const r = await trove(['login', srv.url, '--no-browser'], { configDir: tempDir(), timeoutMs: 30_000 }).done;
      expect([r.code, r.stdout, r.stderr], body).toEqual([1, '', `trove: ${srv.url} does not look like a Trove server: its answer to POST /api/devices/enroll is not an enrollment\n`]);
    }
  });
});

describe('key directories', () => {
  const sha = (url: string) => createHash('sha256').update(url).digest('hex').slice(0, 16);

  it('are one per exact server URL, and a record naming another URL is refused', async () => {
    const srv = await start(friendly);
    const home = tempDir();
    const port = new URL(srv.url).port;
    // Written by an earlier trove: the old name squashed `_`, `:` and `/`, so /team/a and /team_a shared it.
    const legacy = join(home, 'servers', `http_127.0.0.1_${port}_team_a`);
    mkdirSync(legacy, { recursive: true, mode: 0o700 });
    writeFileSync(join(legacy, 'device.json'), JSON.stringify({ url: `${srv.url}/team/a`, device_id: 'old', name: 'n', kind: 'gradle', public_key: 'x', expires_at: null, enrolled_at: '' }));
    writeFileSync(join(legacy, 'device.key'), 'unused');
    const status = async (url: string) => trove(['status', '--json', '--url', url], { configDir: home, timeoutMs: 30_000 }).done;

    let r = await status(`${srv.url}/team_a`);
    expect([r.code, r.stderr]).toEqual([1, `trove: not logged in to ${srv.url}/team_a: run \`trove login ${srv.url}/team_a\`\n`]);
    r = await status(`${srv.url}/team/a`);
    expect(JSON.parse(r.stdout)).toMatchObject({ server: `${srv.url}/team/a`, device_id: 'old' }); // still read

    await enroll(`${srv.url}/team_a`, home);
    const own = `http_127.0.0.1_${port}_team_a_${sha(`${srv.url}/team_a`)}`;
    expect(readdirSync(join(home, 'servers')).sort()).toEqual([`http_127.0.0.1_${port}_team_a`, own]);
    expect(JSON.parse(readFileSync(join(home, 'servers', own, 'device.json'), 'utf8')).url).toBe(`${srv.url}/team_a`);
    r = await status(`${srv.url}/team/a`);
    expect(JSON.parse(r.stdout)).toMatchObject({ device_id: 'old' });

    // A record copied into another server's directory is not that server's device.
    const copied = join(home, 'servers', `http_127.0.0.1_${port}_team_b_${sha(`${srv.url}/team_b`)}`);
    mkdirSync(copied, { mode: 0o700 });
    for (const f of ['device.json', 'device.key']) writeFileSync(join(copied, f), readFileSync(join(home, 'servers', own, f)));
    r = await status(`${srv.url}/team_b`);
    expect([r.code, r.stderr]).toEqual([1, `trove: ${join(copied, 'device.json')} belongs to ${srv.url}/team_a, not ${srv.url}/team_b: run \`trove login ${srv.url}/team_b\`\n`]);
  });
});
