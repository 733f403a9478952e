import { mkdtempSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Spool } from '@trove/blobstore';
import { NexusClient, type NexusAsset } from '../src/nexus/client.js';

/**
 * The client against a source that answers whatever a hostile or broken server might: each test
 * sets `answer`. Nothing it sends may crash the client, hold it for ever, or make it fetch outside
 * the repository's content root.
 */
let server: Server;
let url: string;
let answer: (req: IncomingMessage, res: ServerResponse) => void;
const requests: string[] = [];
let spool: Spool;

beforeEach(async () => {
  requests.length = 0;
  server = createServer((req, res) => {
    requests.push(req.url ?? '');
    answer(req, res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  spool = new Spool(mkdtempSync(join(tmpdir(), 'mirror-spool-')));
  await spool.init();
});
afterEach(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

const client = (timeoutMs = 2_000) => new NexusClient({ baseUrl: url, username: 'u', password: 'p' }, { backoffMs: 5, timeoutMs, retries: 0 });
const json = (body: unknown) => (_req: IncomingMessage, res: ServerResponse) => res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
const asset = (over: Partial<NexusAsset> = {}): NexusAsset => ({ path: 'f.txt', downloadUrl: '', checksum: {}, fileSize: null, contentType: null, uploader: null, ...over });

describe('a hostile source', () => {
  it('answers a repository list that is not a list with a typed error', async () => {
    for (const body of [{ items: [] }, null, 'x']) {
      answer = json(body);
      await expect(client().repositories()).rejects.toMatchObject({ kind: 'invalid', message: 'the repository list is not a Nexus answer' });
    }
  });

  it("drops repository names that would leave the content root, counts a name listed twice once, and survives unreadable settings", async () => {
    answer = (req, res) => {
      if (req.url?.includes('repositorySettings')) return void res.writeHead(200, { 'Content-Type': 'text/html' }).end('<html>sign in</html>');
      json([
        { name: '..', format: 'raw', type: 'hosted' },
        { name: '.hidden', format: 'raw', type: 'hosted' },
        { name: 'a/b', format: 'raw', type: 'hosted' },
        { name: 'files', format: 'raw', type: 'hosted' },
        { name: 'files', format: 'maven2', type: 'hosted' },
      ])(req, res);
    };
    expect(await client().repositories()).toEqual([{ name: 'files', format: 'raw', type: 'hosted' }]);
  });

  it('keeps apt distributions that read when another settings entry does not', async () => {
    answer = (req, res) =>
      req.url?.includes('repositorySettings')
        ? json([{ name: 'odd', apt: 'x' }, { name: 'apt', apt: { distribution: 'bookworm' } }])(req, res)
        : json([{ name: 'apt', format: 'apt', type: 'hosted' }])(req, res);
    expect(await client().repositories()).toEqual([{ name: 'apt', format: 'apt', type: 'hosted', distribution: 'bookworm' }]);
  });

  it('gives up on a listing that answers empty pages with new tokens for ever', async () => {
    let n = 0;
    answer = (req, res) => json({ items: [], continuationToken: `t${n++}-${'x'.repeat(4000)}` })(req, res);
    const pages = async () => {
      for await (const _ of client().assets('files'));
    };
    await expect(pages()).rejects.toMatchObject({ kind: 'invalid', message: expect.stringMatching(/empty pages in a row/) });
    expect(n).toBe(101);
  });

  it('lists a file with an overlong uploader name or content type, cut or dropped, rather than as unreadable', async () => {
    answer = json({ items: [{ path: '/f.txt', checksum: { sha1: 'a'.repeat(40) }, uploader: 'u'.repeat(300), contentType: `text/${'x'.repeat(300)}` }], continuationToken: null });
    const pages = [];
    for await (const page of client().assets('files')) pages.push(page);
    expect(pages).toEqual([{ items: [expect.objectContaining({ path: 'f.txt', uploader: 'u'.repeat(200), contentType: null })], unreadable: [] }]);
  });

  it('never builds a URL outside the repository, nor follows a downloadUrl into another repository', () => {
    const c = client();
    expect(() => c.contentUrl('..', asset())).toThrow(/\.\. is not a repository name; refused/);
    expect(() => c.contentUrl('files', asset({ path: '../../service/rest/v1/status' }))).toThrow(/leaves \/repository\/files\/; refused/);
    expect(() => c.contentUrl('files', asset({ downloadUrl: `${url}/repository/secret/f.txt` }))).toThrow(/points outside files on the source/);
    expect(c.contentUrl('files', asset({ downloadUrl: `${url}/repository/files/f.txt` })).pathname).toBe('/repository/files/f.txt');
    // Jetty (Nexus's server) reads `..;x` as `..` with a path parameter, and decodes `%2F` and `%2e`: another repository again.
    for (const trick of ['..;/secret/f.txt', '..%3B/secret/f.txt', 'a/..;x/..;/secret/f.txt', '%2e%2e/secret/f.txt', 'a%2F..%2F..%2Fsecret/f.txt', 'other.txt']) {
      expect(() => c.contentUrl('files', asset({ downloadUrl: `${url}/repository/files/${trick}` })), trick).toThrow(/does not name the listed path|refused/);
    }
    expect(() => c.contentUrl('files', asset({ path: 'a/..;/secret/f.txt' }))).toThrow(/refused/);
    expect(c.contentUrl('files', asset({ path: 'dir/a b+c.txt', downloadUrl: `${url}/repository/files/dir/a%20b+c.txt` })).pathname).toBe('/repository/files/dir/a%20b+c.txt');
  });

  it('gives up on a download that trickles just inside the stall timeout', async () => {
    answer = (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/octet-stream' });
      const drip = setInterval(() => (res.destroyed ? clearInterval(drip) : res.write('x')), 150);
    };
    const started = Date.now();
    await expect(client(300).download('files', asset({ fileSize: 100_000 }), spool, { maxBytes: 1 << 20 })).rejects.toMatchObject({ kind: 'timeout', message: expect.stringMatching(/slower than 64 KiB\/s on average/) });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('retries a listing or repository list whose connection breaks off mid-body, and reports the source unreachable', async () => {
    answer = (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': '100' });
      res.write('{"ite', () => res.destroy());
    };
    const c = new NexusClient({ baseUrl: url, username: 'u', password: 'p' }, { backoffMs: 5, timeoutMs: 2_000, retries: 2 });
    const pages = async () => {
      for await (const _ of c.assets('files'));
    };
    await expect(pages()).rejects.toMatchObject({ kind: 'unreachable', message: expect.stringMatching(/broke off/) });
    expect(requests.length).toBe(3);
    await expect(c.repositories()).rejects.toMatchObject({ kind: 'unreachable' });
  });

  it('refuses unfetched a file listed larger than max_upload_bytes, and gives a file of unknown size a deadline a timer can hold', async () => {
    answer = (_req, res) => res.writeHead(200, { 'Content-Type': 'application/octet-stream' }).end('small');
    await expect(client().download('files', asset({ fileSize: 2048 }), spool, { maxBytes: 1024 })).rejects.toMatchObject({ kind: 'too_large', message: expect.stringMatching(/2048 bytes.*max_upload_bytes \(1024\)/) });
    expect(requests).toEqual([]);
    // 2^41 bytes at 64 KiB/s is past the longest timer Node keeps (2^31 - 1 ms): it must not fire at once.
    const file = await client().download('files', asset({ fileSize: null }), spool, { maxBytes: 2 ** 41 });
    expect(file.size).toBe(5);
    await file.dispose();
  });

  it('stops reading a body that runs on past the size the source listed', async () => {
    answer = (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/octet-stream' }); // chunked: no length announced
      const flood = setInterval(() => (res.destroyed ? clearInterval(flood) : res.write(Buffer.alloc(64 * 1024, 1))), 1);
    };
    await expect(client().download('files', asset({ fileSize: 100_000 }), spool, { maxBytes: 1 << 30 })).rejects.toMatchObject({ kind: 'changed', message: expect.stringMatching(/sent more than the 100000 bytes it listed/) });
  });
});
