import { createServer } from 'node:net';
import { request } from 'node:http';
import { sleep } from './proc.mjs';

/** A free loopback port (bound then released; the race is acceptable on a bench machine). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** One GET; resolves {status, body} or rejects on a connection error. */
export function get(url, { headers = {}, timeoutMs = 2000 } = {}) {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode, body }));
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end();
  });
}

/** Polls `url` until it answers 200 (and `body` when given); rejects after `timeoutMs`. */
export async function waitFor(url, { body, timeoutMs = 30000, everyMs = 20 } = {}) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const r = await get(url, { timeoutMs: 1000 });
      if (r.status === 200 && (body === undefined || r.body.trim() === body)) return;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) throw new Error(`${url} did not become ready within ${timeoutMs} ms`);
    await sleep(everyMs);
  }
}
