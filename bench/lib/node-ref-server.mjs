#!/usr/bin/env node
/**
 * The platform's ceiling for BENCH.md's references: a plain node:http server with no
 * framework. GET streams a file under ROOT with pipeline(createReadStream, res);
 * PUT does pipeline(req, sha256, file) + fsync + rename, the least an upload that
 * must survive a crash can do (`?hashes=sha256,sha1,md5` hashes with those instead,
 * to separate the cost of the hash set from the server's own). Started by
 * references.mjs, pinned like the server.
 * Usage: node node-ref-server.mjs <root> <port>
 */
import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { open, rename, rm, stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import { join, normalize } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';

const [root, port] = process.argv.slice(2);

function fileOf(url) {
  const p = normalize(decodeURIComponent(new URL(url, 'http://x').pathname));
  if (p.includes('..')) return null;
  return join(root, p);
}

async function serve(req, res) {
  const file = fileOf(req.url);
  if (!file) return res.writeHead(400).end();
  let st;
  try {
    st = await stat(file);
  } catch {
    return res.writeHead(404).end();
  }
  res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': st.size, ETag: `"${st.size}-${st.mtimeMs}"` });
  if (req.method === 'HEAD') return res.end();
  await pipeline(createReadStream(file), res).catch(() => {});
}

async function receive(req, res) {
  const file = fileOf(req.url);
  if (!file) return res.writeHead(400).end();
  const algorithms = new URL(req.url, 'http://x').searchParams.get('hashes')?.split(',') ?? ['sha256'];
  const hashes = algorithms.map((a) => createHash(a));
  const tmp = join(root, `.${randomUUID()}.part`);
  let size = 0;
  const meter = new Transform({
    transform(chunk, _enc, cb) {
      size += chunk.length;
      for (const h of hashes) h.update(chunk);
      cb(null, chunk);
    },
  });
  try {
    await pipeline(req, meter, createWriteStream(tmp, { flags: 'wx' }));
    const fh = await open(tmp, 'r+');
    await fh.sync();
    await fh.close();
    await rename(tmp, file);
  } catch {
    await rm(tmp, { force: true });
    return res.writeHead(400).end();
  }
  const body = JSON.stringify({ size, ...Object.fromEntries(algorithms.map((a, i) => [a, hashes[i].digest('hex')])) });
  res.writeHead(201, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) }).end(body);
}

const server = createServer((req, res) => {
  if (req.url === '/healthz') return res.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok');
  if (req.method === 'PUT') return void receive(req, res);
  return void serve(req, res);
});
server.requestTimeout = 0;
server.listen(Number(port), '127.0.0.1');
const stop = () => server.close(() => process.exit(0)) && server.closeAllConnections();
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
