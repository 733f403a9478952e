#!/usr/bin/env node
/**
 * W4 (BENCH.md): a 1 GiB upload with Content-Length and chunked (curl -T, and with
 * `Transfer-Encoding: chunked`), Trove's raw PUT against a plain node server doing
 * pipeline(req, sha256, file) + fsync + rename, in the same run, interleaved.
 * Targets: >= 0.8x plain node; RSS growth <= 64 MiB.
 * Also prints each server's CPU seconds per GiB (all threads): on this shared 2-core machine
 * throughput drifts with other work on core 0, CPU per byte much less, and a run whose server
 * spends its time in V8's marking threads shows up as such.
 */
import { join } from 'node:path';
import { curlUpload } from './lib/curl.mjs';
import { makeFile, tempDir } from './lib/files.mjs';
import { withMemory } from './lib/memory.mjs';
import { cpuSeconds } from './lib/proc.mjs';
import { startNodeReference } from './lib/references.mjs';
import { publishSession } from './lib/publish.mjs';
import { header, line, summary, verdict } from './lib/report.mjs';
import { fmt, fmtRatio, mib, ratio, spread } from './lib/stats.mjs';
import { basicAuth, createRawRepo, ensureBuilt, startTrove } from './lib/trove.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const BIG = Number(process.env.BENCH_BIG_BYTES ?? 1024 ** 3);
const LIMIT_MiB = 64;

header('W4', `upload ${mib(BIG)} MiB, Content-Length and chunked (${RUNS} runs each, median [min-max])`);
await ensureBuilt();
const { dir, clean } = tempDir('w4');
const trove = await startTrove();
const refRoot = join(dir, 'ref');
const { mkdirSync } = await import('node:fs');
mkdirSync(refRoot);
const node = await startNodeReference(refRoot);
const rows = [];
try {
  const file = await makeFile(join(dir, 'upload.bin'), BIG);
  await createRawRepo(trove.url, 'files', { anonymousRead: true });
  const auth = { Authorization: basicAuth('ci', await publishSession(trove.url, 'files')) };
  let n = 0;
  const targets = {
    trove: { s: trove, url: () => `${trove.url}/raw/files/upload-${++n}.bin`, headers: auth, ok: [201] },
    node: { s: node, url: () => `${node.url}/upload-${++n}.bin`, headers: {}, ok: [201] },
    // Diagnostic: the same plain server hashing what the raw PUT hashes (sha256, sha1).
    node2: { s: node, url: () => `${node.url}/upload-${++n}.bin?hashes=sha256,sha1`, headers: {}, ok: [201] },
  };
  // Warm-up with a small body: JIT and the session check, not the page cache.
  const small = await makeFile(join(dir, 'warm-up.bin'), 8 * 1024 * 1024);
  for (const t of Object.values(targets)) for (const chunked of [false, true]) await curlUpload(t.url(), small, { chunked, headers: t.headers });
  for (const chunked of [false, true]) {
    const mode = chunked ? 'chunked' : 'Content-Length';
    const mibps = { trove: [], node: [], node2: [] };
    const growth = { trove: [], node: [], node2: [] };
    const cpu = { trove: [], node: [], node2: [] };
    for (let i = 0; i < RUNS; i++) {
      for (const [who, t] of Object.entries(targets)) {
        const cpuBefore = cpuSeconds(t.s.pid);
        const m = await withMemory(t.s, () => curlUpload(t.url(), file, { chunked, headers: t.headers }));
        cpu[who].push((cpuSeconds(t.s.pid) - cpuBefore) / (BIG / 1024 ** 3));
        if (!t.ok.includes(m.result.status)) throw new Error(`${who} ${mode}: ${m.result.status} ${m.result.body}`);
        // The answer's size, not curl's byte count: chunked framing adds bytes on the wire.
        const size = JSON.parse(m.result.body).size;
        if (size !== BIG) throw new Error(`${who} ${mode}: stored ${size} bytes`);
        mibps[who].push(mib(BIG) / m.result.seconds);
        growth[who].push(mib(m.growth));
      }
    }
    const t = { trove: spread(mibps.trove), node: spread(mibps.node), node2: spread(mibps.node2) };
    const c = { trove: spread(cpu.trove), node: spread(cpu.node), node2: spread(cpu.node2) };
    const g = { trove: spread(growth.trove), node: spread(growth.node) };
    const r = ratio(t.trove.median, t.node.median);
    line(`${mode.padEnd(14)} trove ${fmt(t.trove)} MiB/s | node pipeline+sha256+fsync ${fmt(t.node)} MiB/s | trove/node ${fmtRatio(r)} (target >= 0.80x: ${verdict(r >= 0.8)})`);
    const r2 = ratio(t.trove.median, t.node2.median);
    line(`${' '.repeat(14)} diagnostic: node with sha256+sha1 (the raw PUT's hash set) ${fmt(t.node2)} MiB/s; trove/that ${fmtRatio(r2)}`);
    line(`${' '.repeat(14)} server CPU s/GiB: trove ${fmt(c.trove, 2)} | node ${fmt(c.node, 2)} | node sha256+sha1 ${fmt(c.node2, 2)}`);
    line(`${' '.repeat(14)} RSS growth MiB: trove ${fmt(g.trove, 1)} (target <= ${LIMIT_MiB}: ${verdict(g.trove.max <= LIMIT_MiB)}) | node ${fmt(g.node, 1)}`);
    rows.push(
      { name: `${mode} MiB/s trove | node`, value: `${fmt(t.trove)} | ${fmt(t.node)}` },
      { name: `${mode} trove/node`, value: fmtRatio(r), target: '>= 0.80x', verdict: verdict(r >= 0.8) },
      { name: `${mode} diagnostic: node with sha256+sha1 MiB/s, trove/that`, value: `${fmt(t.node2)}, ${fmtRatio(r2)}` },
      { name: `${mode} server CPU s/GiB trove | node | node sha256+sha1`, value: `${fmt(c.trove, 2)} | ${fmt(c.node, 2)} | ${fmt(c.node2, 2)}` },
      { name: `${mode} RSS growth MiB trove | node`, value: `${fmt(g.trove, 1)} | ${fmt(g.node, 1)}`, target: `<= ${LIMIT_MiB}`, verdict: verdict(g.trove.max <= LIMIT_MiB) },
    );
  }
} finally {
  await Promise.all([trove.stop(), node.stop()]);
  clean();
}
summary({ id: 'W4', title: '1 GiB upload', rows });
