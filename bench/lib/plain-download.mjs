#!/usr/bin/env node
/**
 * The reference for bench/mirror-import.mjs: a plain parallel download of a list of URLs with
 * fetch and stream.pipeline into files (no hashing, no fsync, no database), CONCURRENCY at a time.
 * usage: node plain-download.mjs URLS_JSON_FILE CONCURRENCY OUT_DIR AUTH_HEADER [durable]
 * With `durable`, each file is also made crash-safe the way any careful store must: fsync the file,
 * rename it into place, fsync the directory (no hashing, no database). That is the floor a
 * verified, durable import cannot go below, printed as a second reference.
 * stdout: one JSON line {files, bytes, seconds}.
 */
import { createWriteStream, readFileSync } from 'node:fs';
import { mkdir, open, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

const [urlsFile, concurrency, out, auth, mode] = process.argv.slice(2);
const durable = mode === 'durable';
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
async function worker() {
  while (next < urls.length) {
    const i = next++;
    const res = await fetch(urls[i], { headers: { Authorization: auth } });
    if (!res.ok) throw new Error(`${urls[i]}: ${res.status}`);
    const file = createWriteStream(join(out, `f${i}`));
    await pipeline(Readable.fromWeb(res.body), file);
    bytes += file.bytesWritten;
    if (durable) {
      await fsyncPath(join(out, `f${i}`));
      await rename(join(out, `f${i}`), join(placed, `f${i}`));
      await fsyncPath(placed);
    }
  }
}
await Promise.all(Array.from({ length: Number(concurrency) }, worker));
console.log(JSON.stringify({ files: urls.length, bytes, seconds: (performance.now() - started) / 1000 }));
