import { readdirSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { basic } from '@trove/core/testing/resolver';
import type { TestServer } from '@trove/core/testing/server';
import { startFilesServer } from './files-server.js';

let s: TestServer | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

/** A raw HTTP/1.1 connection: what a client sends is exactly what is written, and every byte back is kept. */
class RawConnection {
  private readonly socket: Socket;
  received = '';
  closed = false;
  constructor(port: number) {
    this.socket = connect(port, '127.0.0.1');
    this.socket.on('data', (d) => (this.received += d.toString('latin1')));
    this.socket.on('close', () => (this.closed = true));
    this.socket.on('error', () => (this.closed = true));
  }
  write(text: string | Buffer) {
    this.socket.write(text);
  }
  /** Waits until `test` holds for the bytes received so far (or the connection closes). */
  async until(test: (received: string) => boolean, ms = 10_000): Promise<string> {
    const end = Date.now() + ms;
    while (!test(this.received) && !this.closed && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
    return this.received;
  }
  close() {
    this.socket.destroy();
  }
  /** Stops reading: what the server sends piles up in the socket buffers. */
  pause() {
    this.socket.pause();
  }
}

const finalStatus = (received: string) => /HTTP\/1\.1 ([2-5]\d\d)/.exec(received)?.[1];
const head = (lines: string[]) => lines.join('\r\n') + '\r\n\r\n';

describe('coded bodies', () => {
  it('refuses a content or transfer coding it would store undone: 415 and 501, nothing stored', async () => {
    s = await startFilesServer();
    const { gzipSync } = await import('node:zlib');
    const zipped = gzipSync(Buffer.from('hello'));
    let r = await fetch(`${s.url}/raw/files/a.txt`, { method: 'PUT', body: zipped, headers: { Authorization: basic('pub'), 'Content-Encoding': 'gzip' } });
    expect(r.status).toBe(415);
    expect((await r.json()).code).toBe('unsupported_encoding');
    const c = new RawConnection(s.port);
    c.write(head(['PUT /raw/files/b.txt HTTP/1.1', 'Host: x', `Authorization: ${basic('pub')}`, 'Transfer-Encoding: gzip, chunked']) + `${zipped.length.toString(16)}\r\n` + zipped.toString('latin1') + '\r\n0\r\n\r\n');
    expect(finalStatus(await c.until((got) => !!finalStatus(got)))).toBe('501');
    c.close();
    r = await fetch(`${s.url}/api/repos`, { method: 'POST', body: gzipSync('{"name":"x","format":"raw"}'), headers: { Authorization: basic('admin'), 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' } });
    expect(r.status).toBe(415);
    for (const p of ['a.txt', 'b.txt']) expect((await fetch(`${s.url}/raw/files/${p}`)).status).toBe(404);
    expect((await fetch(`${s.url}/raw/files/a.txt`, { method: 'PUT', body: 'plain', headers: { Authorization: basic('pub'), 'Content-Encoding': 'identity' } })).status).toBe(201);
  });
});

describe('stalled clients', () => {
  const spoolFiles = (dir: string) => readdirSync(join(dir, 'spool')).length;
  const until = async (test: () => boolean, ms = 5000) => {
    const end = Date.now() + ms;
    while (!test() && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
    expect(test()).toBe(true);
  };

  it('closes an upload whose body stops arriving, and removes its spool file', async () => {
    s = await startFilesServer({ stallTimeoutMs: 500 });
    const c = new RawConnection(s.port);
    c.write(head(['PUT /raw/files/stalled.bin HTTP/1.1', 'Host: x', `Authorization: ${basic('pub')}`, 'Content-Length: 100000']) + 'x'.repeat(1000));
    await new Promise((r) => setTimeout(r, 200));
    expect(spoolFiles(s!.dataDir)).toBe(1);
    await c.until(() => false, 3000);
    expect(c.closed).toBe(true);
    await until(() => spoolFiles(s!.dataDir) === 0);
    expect((await fetch(`${s!.url}/raw/files/stalled.bin`)).status).toBe(404);
  });

  it('closes a JSON request whose body stops arriving', async () => {
    s = await startFilesServer({ stallTimeoutMs: 500 });
    const c = new RawConnection(s.port);
    c.write(head(['POST /api/repos HTTP/1.1', 'Host: x', `Authorization: ${basic('admin')}`, 'Content-Type: application/json', 'Content-Length: 100000']) + '{"name":');
    await new Promise((r) => setTimeout(r, 200));
    expect(c.closed).toBe(false); // taken, and waiting for the rest of its body
    await c.until(() => false, 3000);
    expect(c.closed).toBe(true);
  });

  it('closes a download its client stopped reading', async () => {
    s = await startFilesServer({ stallTimeoutMs: 500 });
    const size = 64 << 20;
    expect((await fetch(`${s!.url}/raw/files/big.bin`, { method: 'PUT', body: Buffer.alloc(size, 7), headers: { Authorization: basic('pub') } })).status).toBe(201);
    const socket = connect(s!.port, '127.0.0.1');
    let received = 0;
    const ended = new Promise((r) => socket.once('close', r));
    socket.on('error', () => {});
    socket.on('data', (d: Buffer) => {
      if (received === 0) socket.pause(); // reads the first bytes, then nothing: the server's writes stop
      received += d.length;
    });
    socket.write(head(['GET /raw/files/big.bin HTTP/1.1', 'Host: x']));
    await new Promise((r) => setTimeout(r, 2000));
    socket.resume(); // what was buffered before the server gave up, then the end of the connection
    await ended;
    expect(received).toBeLessThan(size); // headers included: the whole answer would be more
  });
});

describe('upload framing', () => {
  it('answers a PUT with neither Content-Length nor chunked framing with 411 and stores nothing', async () => {
    s = await startFilesServer();
    const c = new RawConnection(s.port);
    c.write(head(['PUT /raw/files/no-length.txt HTTP/1.1', 'Host: x', `Authorization: ${basic('pub')}`]));
    const got = await c.until((r) => !!finalStatus(r) && r.includes('}'));
    c.close();
    expect(finalStatus(got)).toBe('411');
    expect(got).toMatch(/"error":/);
    expect((await fetch(`${s.url}/raw/files/no-length.txt`)).status).toBe(404);
  });

  it('never tells a client 400 for an upload that was stored when bytes follow its body', async () => {
    s = await startFilesServer();
    const c = new RawConnection(s.port);
    c.write(head(['PUT /raw/files/over.txt HTTP/1.1', 'Host: x', `Authorization: ${basic('pub')}`, 'Content-Length: 5']) + 'hello' + '\u0000 not HTTP at all\r\n\r\n');
    const got = await c.until((r) => c.closed || /HTTP\/1\.1 201[\s\S]*\r\n\r\n/.test(r), 5000);
    c.close();
    expect(finalStatus(got)).toBe('201');
    expect(got).not.toMatch(/HTTP\/1\.1 400/);
    expect(await (await fetch(`${s.url}/raw/files/over.txt`)).text()).toBe('hello');
  });

  const refused: [string, string[], string][] = [
    ['401 without credentials', ['PUT /raw/files/a.bin HTTP/1.1', 'Content-Length: 1000'], '401'],
    ['404 for an unknown repository', ['PUT /raw/nope/a.bin HTTP/1.1', `Authorization: ${basic('pub')}`, 'Content-Length: 1000'], '404'],
    ['401 for a session of another repository', ['PUT /raw/other/a.bin HTTP/1.1', `Authorization: ${basic('pub')}`, 'Content-Length: 1000'], '401'],
    ['413 by Content-Length', ['PUT /raw/files/huge.bin HTTP/1.1', `Authorization: ${basic('pub')}`, 'Content-Length: 3000000000'], '413'],
  ];
  for (const [what, lines, status] of refused) {
    it(`Expect: 100-continue: answers ${what} without asking for the body`, async () => {
      s = await startFilesServer();
      await s.ctx.repos.create({ name: 'other', format: 'raw' });
      const c = new RawConnection(s.port);
      c.write(head([...lines, 'Host: x', 'Expect: 100-continue']));
      const got = await c.until((r) => !!finalStatus(r));
      c.close();
      expect(got).not.toMatch(/100 Continue/);
      expect(finalStatus(got)).toBe(status);
    });
  }

  it('Expect: 100-continue: asks for the body of an accepted upload, then stores it', async () => {
    s = await startFilesServer();
    const c = new RawConnection(s.port);
    c.write(head(['PUT /raw/files/continued.txt HTTP/1.1', 'Host: x', `Authorization: ${basic('pub')}`, 'Content-Length: 5', 'Expect: 100-continue']));
    expect(await c.until((r) => r.includes('100 Continue') || !!finalStatus(r))).toMatch(/^HTTP\/1\.1 100 Continue\r\n/);
    c.write('hello');
    const got = await c.until((r) => !!finalStatus(r));
    c.close();
    expect(finalStatus(got)).toBe('201');
    expect(await (await fetch(`${s.url}/raw/files/continued.txt`)).text()).toBe('hello');
  });
});
