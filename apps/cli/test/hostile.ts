import { chmodSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { tempDir, trove } from './harness.js';

/**
 * A stand-in for a broken or hostile Trove server, inside the test process: each request goes
 * to `handle`, which the test may swap between CLI runs. Every request is recorded (with its
 * body once `readBody` read it), so a test can show what never reached a host.
 */
export interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body?: string;
}
export type Handler = (req: IncomingMessage, res: ServerResponse, seen: Seen) => unknown;

export interface Hostile {
  url: string;
  seen: Seen[];
  handle: Handler;
  close(): Promise<void>;
}

export function readBody(req: IncomingMessage, seen: Seen): Promise<string> {
  return new Promise((ok) => {
    let b = '';
    req.on('data', (c) => (b += c));
    req.on('end', () => ok((seen.body = b)));
  });
}

export const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

export async function hostile(handle: Handler): Promise<Hostile> {
  const h: Hostile = { url: '', seen: [], handle, close: async () => {} };
  const server = createServer((req, res) => {
    const seen: Seen = { method: req.method!, url: req.url!, headers: req.headers };
    h.seen.push(seen);
    void h.handle(req, res, seen);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  h.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  h.close = () =>
    new Promise((ok) => {
      server.closeAllConnections();
      server.close(() => ok());
    });
  return h;
}

export const session = { id: 's1', token: 'trs_5e55_secret', repo: 'r', format: 'raw', expires_at: '2099-01-01T00:00:00Z' };
export const device = { device_id: 'dev1', name: 'box', kind: 'gradle', expires_at: '2099-01-01T00:00:00Z' };

/** A server that opens sessions, takes uploads (201) and approves any enrollment at the first poll. */
export const friendly: Handler = async (req, res, seen) => {
  const body = await readBody(req, seen);
  const base = `http://${req.headers.host}${req.url!.replace(/\/api\/.*$/, '')}`;
  // The API below any base path (a server URL may have one).
  const path = req.url!.replace(/^.*?(?=\/api\/)/, '');
  if (path === '/api/devices/enroll')
    return json(res, 200, { device_code: 'dc', user_code: 'ABCD-EFGH', verification_url: `${base}/#/publishing?code=ABCD-EFGH`, expires_in: 600, interval: 1 });
  if (path === '/api/devices/enroll/poll') return json(res, 200, device);
  if (path === '/api/publish/challenge') return json(res, 200, { nonce: 'n', ...device });
  if (path.startsWith('/api/publish/sessions/') && req.method === 'DELETE') return res.writeHead(204).end();
  if (path.startsWith('/api/publish/sessions')) return json(res, 201, session);
  if (req.method === 'PUT') return json(res, 201, { size: body.length });
  json(res, 404, { error: 'not found' });
};

/** `trove login URL --no-browser` against a friendly server: a device for URL in `home`. */
export async function enroll(url: string, home: string): Promise<void> {
  const r = await trove(['login', url, '--no-browser'], { configDir: home, timeoutMs: 30_000 }).done;
  if (r.code !== 0) throw new Error(`login: ${r.code} ${r.stderr}`);
}

/** A fake `xdg-open` that records its arguments, for `trove login` without --no-browser. */
export function fakeOpener(): { env: Record<string, string>; log: string } {
  const bin = tempDir('trove-cli-bin-');
  const log = join(bin, 'opened.log');
  writeFileSync(join(bin, 'xdg-open'), `#!/bin/sh\nprintf '%s\\n' "$*" >> '${log}'\n`);
  chmodSync(join(bin, 'xdg-open'), 0o755);
  return { env: { PATH: `${bin}:${process.env.PATH}`, DISPLAY: ':0' }, log };
}

/** Control characters a terminal would act on: C0 but newline, DEL, C1. */
export const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;
