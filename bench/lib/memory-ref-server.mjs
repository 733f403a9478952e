#!/usr/bin/env node
/**
 * The platform's ceiling for a small response (issue 19): a bare node:http server answering
 * GET with bytes it already holds in memory: no file system, no framework, one
 * `writeHead` + `end(buffer)`, the same headers a download needs (type, length, ETag).
 * Files under ROOT are read once, at their first request. Started by references.mjs,
 * pinned like the server.
 * Usage: node memory-ref-server.mjs <root> <port>
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join, normalize } from 'node:path';

const [root, port] = process.argv.slice(2);
const files = new Map();

function load(url) {
  const hit = files.get(url);
  if (hit) return hit;
  const p = normalize(decodeURIComponent(url.split('?')[0]));
  if (p.includes('..')) return null;
  let body;
  try {
    body = readFileSync(join(root, p));
  } catch {
    return null;
  }
  const entry = {
    body,
    headers: { 'Content-Type': 'application/octet-stream', 'Content-Length': String(body.length), ETag: `"${createHash('sha256').update(body).digest('hex')}"` },
  };
  if (files.size < 1000) files.set(url, entry);
  return entry;
}

const server = createServer((req, res) => {
  if (req.url === '/healthz') return res.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok');
  const f = load(req.url);
  if (!f) return res.writeHead(404).end();
  res.writeHead(200, f.headers);
  res.end(req.method === 'HEAD' ? undefined : f.body);
});
server.listen(Number(port), '127.0.0.1');
const stop = () => server.close(() => process.exit(0)) && server.closeAllConnections();
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
