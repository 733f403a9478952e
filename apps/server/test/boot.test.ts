import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runToExit, startProcess, type Running } from './process.js';

let srv: Running | undefined;
afterEach(async () => {
  await srv?.stop();
  srv = undefined;
});

describe('server process', () => {
  it('starts on an embedded default and answers /healthz', async () => {
    srv = await startProcess();
    const r = await fetch(`${srv.url}/healthz`);
    expect(r.status).toBe(200);
    expect(await r.text()).toBe('ok');
    expect(statSync(join(srv.dataDir, 'master.key')).mode & 0o777).toBe(0o600);
    expect(statSync(join(srv.dataDir, 'trove.db')).isFile()).toBe(true);
  });

  it('refuses to start on an invalid environment value and names the variable', async () => {
    const r = await runToExit({ TR_MAX_UPLOAD_BYTES: 'a lot' });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/TR_MAX_UPLOAD_BYTES/);
    const s3 = await runToExit({ TR_STORAGE: 's3' });
    expect(s3.code).toBe(1);
    expect(s3.stderr).toMatch(/TR_S3_BUCKET/);
    const listen = await runToExit({ TR_LISTEN: 'everywhere' });
    expect(listen.code).toBe(1);
    expect(listen.stderr).toMatch(/TR_LISTEN/);
  });

  it('refuses a second server on a data directory in use, and starts again after the first was killed', async () => {
    srv = await startProcess();
    const second = await runToExit({}, srv.dataDir);
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(/TR_DATA_DIR: .* is in use by another Trove server \(pid \d+/);
    expect((await fetch(`${srv.url}/healthz`)).status).toBe(200);
    srv.child.kill('SIGKILL'); // no clean shutdown: its lock stays behind, naming a process that is gone
    await new Promise((r) => srv!.child.once('exit', r));
    srv = await startProcess({}, srv.dataDir);
    expect((await fetch(`${srv.url}/healthz`)).status).toBe(200);
  });

  it('warns about unknown TR_ variables and starts anyway', async () => {
    srv = await startProcess({ TR_NOT_A_SETTING: '1' });
    expect(srv.stdout()).toMatch(/"variable":"TR_NOT_A_SETTING".*unknown TR_ variable/);
  });

  it('stops on SIGTERM within its drain time although a client holds a request open', async () => {
    srv = await startProcess();
    const { connect } = await import('node:net');
    const held = connect(srv.port, '127.0.0.1');
    held.on('error', () => {});
    held.write('POST /api/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"username":');
    await new Promise((r) => setTimeout(r, 300));
    const began = Date.now();
    const code = await srv.stop();
    srv = undefined;
    held.destroy();
    expect(code).toBe(0);
    expect(Date.now() - began).toBeLessThan(15_000);
  }, 30_000);

  it('stops cleanly on SIGTERM', async () => {
    srv = await startProcess();
    const code = await srv.stop();
    srv = undefined;
    expect(code).toBe(0);
  });

  it('serves the web UI at / with a strict content security policy', async () => {
    srv = await startProcess();
    const r = await fetch(`${srv.url}/`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/text\/html/);
    expect(r.headers.get('content-security-policy')).toMatch(/default-src 'self'/);
    const html = await r.text();
    const asset = /(?:src|href)="(\/assets\/[^"]+)"/.exec(html);
    if (asset) {
      const a = await fetch(`${srv.url}${asset[1]}`);
      expect(a.status).toBe(200);
      expect(a.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    }
    expect((await fetch(`${srv.url}/no-such-page`)).status).toBe(404);
  });
});
