#!/usr/bin/env node
/**
 * The reference for bench/mirror-import.mjs: a plain parallel download of a list of URLs with
 * fetch and stream.pipeline into files (no hashing, no fsync, no database), CONCURRENCY at a time.
 * usage: node plain-download.mjs URLS_JSON_FILE CONCURRENCY OUT_DIR AUTH_HEADER
 * stdout: one JSON line {files, bytes, seconds}.
 */
import { createWriteStream, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

const [urlsFile, concurrency, out, auth] = process.argv.slice(2);
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
  }
}
await Promise.all(Array.from({ length: Number(concurrency) }, worker));
console.log(JSON.stringify({ files: urls.length, bytes, seconds: (performance.now() - started) / 1000 }));
