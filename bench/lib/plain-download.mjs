#!/usr/bin/env node
/**
 * The reference for bench/mirror-import.mjs: a plain parallel download of a list of URLs with
 * node:http (keep-alive, as Trove's mirror client) or fetch, and stream.pipeline into files (no
 * hashing, no fsync, no database), CONCURRENCY at a time.
 * usage: node plain-download.mjs URLS_JSON_FILE CONCURRENCY OUT_DIR AUTH_HEADER [http|fetch] [durable]
 * With `durable`, each file is also made crash-safe the way any careful store must: fsync the file,
 * rename it into place, fsync the directory (no hashing, no database). That is the floor a
 * verified, durable import cannot go below, printed as a second reference.
 * stdout: one JSON line {files, bytes, seconds, cpu} (cpu: user + system seconds of the download).
 */
import { createWriteStream, readFileSync } from 'node:fs';
import http from 'node:http';
import { mkdir, open, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

const [urlsFile, concurrency, out, auth, client = 'http', mode] = process.argv.slice(2);
const durable = mode === 'durable';
const agent = new http.Agent({ keepAlive: true });

/** The body of one GET as a Node stream. */
async function download(url) {
  if (client === 'fetch') {
    const res = await fetch(url, { headers: { Authorization: auth } });
    if (!res.ok) throw new Error(`${url}: ${res.status}`);
    return Readable.fromWeb(res.body);
  }
  const res = await new Promise((resolve, reject) => http.get(url, { agent, headers: { Authorization: auth } }, resolve).on('error', reject));
  if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode}`);
  return res;
}
const placed = join(out, 'placed');
if (durable) await mkdir(placed);

async function fsyncPath(path) {
  const fh = await open(path, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}
const urls = JSON.parse(readFileSync(urlsFile, 'utf8'));
let next = 0;
let bytes = 0;
const started = performance.now();
const cpuAtStart = process.cpuUsage(); // every thread of the process: libuv's pool does the file work
async function worker() {
  while (next < urls.length) {
    const i = next++;
    const file = createWriteStream(join(out, `f${i}`));
    await pipeline(await download(urls[i]), file);
    bytes += file.bytesWritten;
    if (durable) {
      await fsyncPath(join(out, `f${i}`));
      await rename(join(out, `f${i}`), join(placed, `f${i}`));
      await fsyncPath(placed);
    }
  }
}
await Promise.all(Array.from({ length: Number(concurrency) }, worker));
const used = process.cpuUsage(cpuAtStart);
console.log(JSON.stringify({ files: urls.length, bytes, seconds: (performance.now() - started) / 1000, cpu: (used.user + used.system) / 1e6 }));
