#!/usr/bin/env node
/**
 * Mirror import (issue 15): a sync of 10,000 small files (1-4 KiB) and of a few large ones
 * (default 4 x 64 MiB) from the Nexus double into the built server, files/s and MB/s, side by
 * side with a plain parallel download of the same files at the same concurrency in the same run
 * (node:http keep-alive, the client Trove's mirror uses, + pipeline into files: no hashing, no fsync,
 * no database; also printed with fetch). Goal: >= 0.8x the plain download.
 * Trove (core 0) and the plain download (core 0, when Trove is idle) get the same core; the double
 * serves from core 1. Each Trove run syncs into a fresh source and target repository, so nothing is
 * skipped as unchanged; the time is the sync record's started_at to finished_at, begun once the
 * fresh server has finished its one-time start work (its Debian signing key). Every run's files
 * stay until the script ends, and each measured run starts after a `sync` (see `scratch`). Memory,
 * as BENCH.md's protocol asks: the server's peak RSS growth during the sync over its RSS before,
 * and the drift of RSS samples from the first to the last fifth of the sync.
 * Knobs: BENCH_SMALL (10000), BENCH_LARGE (4), BENCH_LARGE_MB (64), BENCH_CONCURRENCY (4), BENCH_RUNS (3),
 * BENCH_SOURCE_DELAY_MS (0: the double answers at once; a Nexus on a LAN takes 5-30 ms per download).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { header, line, summary, verdict } from './lib/report.mjs';
import { fmt, fmtRatio, median, mib, spread } from './lib/stats.mjs';
import { flatness, withMemory } from './lib/memory.mjs';
import { cpuSeconds, run, settled, sleep, stopChild, track } from './lib/proc.mjs';
import { ROOT, adminCookie, ensureBuilt, startTrove } from './lib/trove.mjs';
import { tempDir } from './lib/files.mjs';

const SMALL = Number(process.env.BENCH_SMALL ?? 10000);
const LARGE = Number(process.env.BENCH_LARGE ?? 4);
const LARGE_MB = Number(process.env.BENCH_LARGE_MB ?? 64);
const C = Number(process.env.BENCH_CONCURRENCY ?? 4);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const DELAY_MS = Number(process.env.BENCH_SOURCE_DELAY_MS ?? 0);

header('mirror-import', `sync of ${SMALL} small and ${LARGE} x ${LARGE_MB} MiB files from the Nexus double${DELAY_MS ? ` (${DELAY_MS} ms before each body)` : ''} vs a plain parallel download (concurrency ${C})`);
await ensureBuilt();

const double = track(spawn('taskset', ['-c', '1', process.execPath, join(ROOT, 'bench/lib/nexus-double-server.mjs'), String(SMALL), String(LARGE), String(LARGE_MB), String(DELAY_MS)], { stdio: ['ignore', 'pipe', 'inherit'] }));
const nexus = await new Promise((resolve, reject) => {
  let out = '';
  double.stdout.on('data', (d) => {
    out += d;
    const m = /^(\{.*"ready":true.*\})$/m.exec(out);
    if (m) resolve(JSON.parse(m[1]));
  });
  double.once('exit', (code) => reject(new Error(`nexus double exited with ${code}`)));
});
const sourceAuth = 'Basic ' + Buffer.from(`${nexus.username}:${nexus.password}`).toString('base64');
async function api(trove, method, path, body) {
  const res = await fetch(`${trove.url}/api${path}`, { method, headers: { Cookie: await adminCookie(trove.url), 'Content-Type': 'application/json' }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  const text = await res.text();
  if (res.status >= 400) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

async function urlsOf(repo) {
  const urls = [];
  let token = null;
  do {
    const q = new URLSearchParams({ repository: repo, ...(token ? { continuationToken: token } : {}) });
    const page = await (await fetch(`${nexus.url}/service/rest/v1/assets?${q}`, { headers: { Authorization: sourceAuth } })).json();
    urls.push(...page.items.map((i) => i.downloadUrl));
    token = page.continuationToken;
  } while (token);
  return urls;
}

/**
 * Every run's files stay until the script ends. Deleting them between runs made the next run pay:
 * without a journal (this machine's ext4) a new inode is never taken from one freed in the last
 * 5 minutes while its inode-table block is dirty, and ext4 checks each such candidate on every
 * allocation (`recently_deleted`, 16% of a profiled sync). The cost fell on whoever ran after the
 * biggest delete, and most on Trove, which makes a key directory beside most new files.
 */
const { dir: scratch } = tempDir('mirror'); // removed on exit and on Ctrl-C: a large run leaves gigabytes
/** Before each measured run: the runs before it leave dirty pages whose writeback would land in it. */
const flushed = () => run('sync', []);

async function plain(repo, urls, client = 'http', mode = '') {
  await flushed();
  const dir = mkdtempSync(join(scratch, 'plain-'));
  const list = join(dir, 'urls.json');
  writeFileSync(list, JSON.stringify(urls));
  const out = mkdtempSync(join(dir, 'out-'));
  const r = await run('taskset', ['-c', '0', process.execPath, join(ROOT, 'bench/lib/plain-download.mjs'), list, String(C), out, sourceAuth, client, mode]);
  if (r.code !== 0) throw new Error(`plain download failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop());
}

/**
 * One sync into a fresh server (own data dir): a second sync of the same files into the same
 * server would find every blob already stored and measure deduplication, not an import.
 */
async function viaTrove(repo) {
  const trove = await startTrove({ dataDir: mkdtempSync(join(scratch, 'trove-')), env: { TR_MIRROR_CONCURRENCY: String(C), TR_LOG_LEVEL: 'warn' }, nodeArgs: (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean) });
  try {
    await adminCookie(trove.url); // signing in (scrypt) is not part of the import either
    await settled(trove.pid); // a fresh server generates its Debian signing key once, in the background
    await flushed();
    const source = await api(trove, 'POST', '/mirror/sources', { name: 'bench', base_url: nexus.url, username: nexus.username, password: nexus.password });
    await api(trove, 'PUT', `/mirror/sources/${source.id}/repos`, [{ source_repo: repo, target: repo, create: true }]);
    const cpuBefore = cpuSeconds(trove.pid);
    const { result: s, growth, samples } = await withMemory(trove, async () => {
      const sync = await api(trove, 'POST', `/mirror/sources/${source.id}/sync`);
      for (;;) {
        const now = await api(trove, 'GET', `/mirror/syncs/${sync.id}`);
        if (now.state !== 'running') return now;
        await sleep(100);
      }
    });
    if (s.state !== 'done' || s.repos[0].failed) throw new Error(`sync ended ${s.state}: ${JSON.stringify(s)}`);
    const cpu = cpuSeconds(trove.pid) - cpuBefore; // the polling GETs above are in it too: a few ms
    const seconds = (Date.parse(s.finished_at) - Date.parse(s.started_at)) / 1000;
    return { files: s.repos[0].fetched, bytes: s.repos[0].bytes, seconds, cpu, growthMiB: mib(growth), driftMiB: flatness(samples).driftMiB };
  } finally {
    await trove.stop();
  }
}

const HASH_CEILING = `const { createHash } = require('node:crypto'); const b = Buffer.alloc(1 << 20, 7); const hs = ['sha256', 'sha1', 'md5', 'sha512'].map((a) => createHash(a));
const t = performance.now(); for (let i = 0; i < 256; i++) for (const h of hs) h.update(b); hs.forEach((h) => h.digest());
console.log((256 * 1.048576 / ((performance.now() - t) / 1000)).toFixed(0));`;

const rows = [];
const notes = [];
for (const repo of ['small', 'large'].filter((r) => (r === 'small' ? SMALL : LARGE) > 0)) {
  const urls = await urlsOf(repo);
  await plain(repo, urls); // warm-up: the double's and the page cache's first touches
  const ref = [];
  const viaFetch = [];
  const durable = [];
  const mine = [];
  for (let i = 0; i < RUNS; i++) {
    ref.push(await plain(repo, urls));
    viaFetch.push(await plain(repo, urls, 'fetch'));
    durable.push(await plain(repo, urls, 'http', 'durable'));
    mine.push(await viaTrove(repo));
  }
  const fps = (xs) => spread(xs.map((x) => x.files / x.seconds));
  const mbps = (xs) => spread(xs.map((x) => x.bytes / 1e6 / x.seconds));
  const mid = (xs) => median(xs.map((x) => x.files / x.seconds));
  const r = mid(mine) / mid(ref);
  line(`${repo}: ${urls.length} files, ${(mine[0].bytes / 1e6).toFixed(1)} MB`);
  line(`  plain download:           ${fmt(fps(ref), 0)} files/s, ${fmt(mbps(ref), 1)} MB/s (node:http keep-alive, as Trove's client)`);
  line(`  plain download, fetch:    ${fmt(fps(viaFetch), 0)} files/s, ${fmt(mbps(viaFetch), 1)} MB/s`);
  line(`  plain download + durable: ${fmt(fps(durable), 0)} files/s, ${fmt(mbps(durable), 1)} MB/s (fsync, rename, fsync dir per file)`);
  line(`  trove sync:               ${fmt(fps(mine), 0)} files/s, ${fmt(mbps(mine), 1)} MB/s`);
  const cpuPer = (xs) => (repo === 'small' ? `${median(xs.map((x) => (x.cpu * 1000) / x.files)).toFixed(2)} ms per file` : `${median(xs.map((x) => (x.cpu * 1000) / (x.bytes / 1e6))).toFixed(2)} ms per MB`);
  line(`  CPU (user + system, median): trove ${cpuPer(mine)}, plain ${cpuPer(ref)}, plain with fetch ${cpuPer(viaFetch)}, plain + durable ${cpuPer(durable)}`);
  line(`  trove memory: peak RSS growth ${fmt(spread(mine.map((x) => x.growthMiB)), 1)} MiB over the RSS before the sync, drift first to last fifth ${fmt(spread(mine.map((x) => x.driftMiB)), 1)} MiB`);
  line(`  ratio (median files/s): ${fmtRatio(r)} of plain, ${fmtRatio(mid(mine) / mid(viaFetch))} of plain with fetch, ${fmtRatio(mid(mine) / mid(durable))} of plain + durable`);
  rows.push({ name: `${repo}: trove files/s`, value: Math.round(mid(mine)) });
  rows.push({ name: `${repo}: trove MB/s`, value: Number(median(mine.map((x) => x.bytes / 1e6 / x.seconds)).toFixed(1)) });
  rows.push({ name: `${repo}: plain files/s`, value: Math.round(mid(ref)) });
  rows.push({ name: `${repo}: plain MB/s`, value: Number(median(ref.map((x) => x.bytes / 1e6 / x.seconds)).toFixed(1)) });
  rows.push({ name: `${repo}: plain with fetch files/s`, value: Math.round(mid(viaFetch)) });
  rows.push({ name: `${repo}: plain + durable files/s`, value: Math.round(mid(durable)) });
  rows.push({ name: `${repo}: ratio`, value: fmtRatio(r), target: '>= 0.8x', verdict: verdict(r >= 0.8) });
  rows.push({ name: `${repo}: trove peak RSS growth MiB`, value: Number(median(mine.map((x) => x.growthMiB)).toFixed(1)) });
  rows.push({ name: `${repo}: ratio to plain with fetch`, value: fmtRatio(mid(mine) / mid(viaFetch)) });
  rows.push({ name: `${repo}: ratio to plain + durable`, value: fmtRatio(mid(mine) / mid(durable)) });
  if (repo === 'large') {
    // What verifying alone costs on the server's core: the four digests over 256 MiB in one pass, pinned like the server.
    const h = await run('taskset', ['-c', '0', process.execPath, '-e', HASH_CEILING]);
    line(`  sha256+sha1+md5+sha512 in one pass on core 0: ${h.stdout.trim()} MB/s (the verification alone, no I/O)`);
    rows.push({ name: 'four digests in one pass, core 0, MB/s', value: Number(h.stdout.trim()) });
  }
}
notes.push(`runs ${RUNS}, concurrency ${C}; Trove verifies sha1, md5, sha256 and sha512 (the double declares all four) and makes each file durable (small ones many at a time, with shared filesystem flushes; its flush helper's CPU is counted in Trove's), the plain download does neither`);
await stopChild(double);
summary({ id: 'mirror-import', title: 'Mirror import from the Nexus double vs a plain parallel download', rows, notes });
