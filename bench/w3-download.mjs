#!/usr/bin/env node
/**
 * W3 (BENCH.md): a 1 GiB download from Trove, from a plain node pipeline and from
 * nginx (sendfile), in the same run, curl pinned to core 1; then 256 MiB to a client
 * limited to 20 MB/s (curl --limit-rate 20M), sampling Trove's RSS all along.
 * Targets: >= 0.8x plain node; RSS growth <= 64 MiB, flat for the slow client.
 * Also prints each server's CPU seconds per GiB (all threads), steadier than throughput on
 * this shared machine.
 */
import { join } from 'node:path';
import { curlDownload, curlUpload } from './lib/curl.mjs';
import { makeFile, tempDir } from './lib/files.mjs';
import { flatness, withMemory } from './lib/memory.mjs';
import { cpuSeconds } from './lib/proc.mjs';
import { startNginx, startNodeReference } from './lib/references.mjs';
import { publishSession } from './lib/publish.mjs';
import { header, line, summary, verdict } from './lib/report.mjs';
import { fmt, fmtRatio, mib, ratio, spread } from './lib/stats.mjs';
import { basicAuth, createRawRepo, ensureBuilt, startTrove } from './lib/trove.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const SLOW_RUNS = Number(process.env.BENCH_SLOW_RUNS ?? 2);
const BIG = Number(process.env.BENCH_BIG_BYTES ?? 1024 ** 3);
const SLOW = Number(process.env.BENCH_SLOW_BYTES ?? 256 * 1024 ** 2);
const LIMIT_MiB = 64;

header('W3', `download ${mib(BIG)} MiB (${RUNS} runs) and ${mib(SLOW)} MiB at 20 MB/s (${SLOW_RUNS} runs)`);
await ensureBuilt();
const { dir, clean } = tempDir('w3');
const trove = await startTrove();
const node = await startNodeReference(dir);
const nginx = await startNginx(dir);
const rows = [];
try {
  await makeFile(join(dir, 'big.bin'), BIG);
  await makeFile(join(dir, 'slow.bin'), SLOW);
  await createRawRepo(trove.url, 'files', { anonymousRead: true });
  const token = await publishSession(trove.url, 'files');
  for (const f of ['big.bin', 'slow.bin']) {
    const up = await curlUpload(`${trove.url}/raw/files/${f}`, join(dir, f), { headers: { Authorization: basicAuth('ci', token) } });
    if (up.status !== 201) throw new Error(`upload ${f}: ${up.status} ${up.body}`);
  }
  const servers = {
    trove: { s: trove, url: `${trove.url}/raw/files/big.bin` },
    node: { s: node, url: `${node.url}/big.bin` },
    nginx: { s: nginx, url: `${nginx.url}/big.bin` },
  };
  for (const { url } of Object.values(servers)) await curlDownload(url); // warm-up: page cache, JIT
  const mibps = { trove: [], node: [], nginx: [] };
  const growth = { trove: [], node: [], nginx: [] };
  const cpu = { trove: [], node: [], nginx: [] };
  for (let i = 0; i < RUNS; i++) {
    for (const [who, { s, url }] of Object.entries(servers)) {
      const cpuBefore = cpuSeconds(s.pid);
      const m = await withMemory(s, () => curlDownload(url));
      cpu[who].push((cpuSeconds(s.pid) - cpuBefore) / (BIG / 1024 ** 3));
      if (m.result.status !== 200 || m.result.downloaded !== BIG) throw new Error(`${who}: ${m.result.status}, ${m.result.downloaded} bytes`);
      mibps[who].push(mib(BIG) / m.result.seconds);
      growth[who].push(mib(m.growth));
    }
  }
  const t = Object.fromEntries(Object.entries(mibps).map(([k, v]) => [k, spread(v)]));
  const g = Object.fromEntries(Object.entries(growth).map(([k, v]) => [k, spread(v)]));
  const c = Object.fromEntries(Object.entries(cpu).map(([k, v]) => [k, spread(v)]));
  const vsNode = ratio(t.trove.median, t.node.median);
  const vsNginx = ratio(t.trove.median, t.nginx.median);
  const worstGrowth = g.trove.max;
  line(`1 GiB   trove ${fmt(t.trove)} MiB/s | node pipeline ${fmt(t.node)} | nginx sendfile ${fmt(t.nginx)}`);
  line(`        trove/node ${fmtRatio(vsNode)} (target >= 0.80x: ${verdict(vsNode >= 0.8)}) | trove/nginx ${fmtRatio(vsNginx)}`);
  line(`        server CPU s/GiB: trove ${fmt(c.trove, 2)} | node ${fmt(c.node, 2)} | nginx ${fmt(c.nginx, 2)}`);
  line(`        RSS growth MiB: trove ${fmt(g.trove, 1)} (target <= ${LIMIT_MiB}: ${verdict(worstGrowth <= LIMIT_MiB)}) | node ${fmt(g.node, 1)} | nginx ${fmt(g.nginx, 1)}`);
  rows.push(
    { name: '1 GiB MiB/s trove | node | nginx', value: `${fmt(t.trove)} | ${fmt(t.node)} | ${fmt(t.nginx)}` },
    { name: '1 GiB trove/node', value: fmtRatio(vsNode), target: '>= 0.80x', verdict: verdict(vsNode >= 0.8) },
    { name: '1 GiB trove/nginx', value: fmtRatio(vsNginx) },
    { name: '1 GiB server CPU s/GiB trove | node | nginx', value: `${fmt(c.trove, 2)} | ${fmt(c.node, 2)} | ${fmt(c.nginx, 2)}` },
    { name: '1 GiB RSS growth MiB trove | node | nginx', value: `${fmt(g.trove, 1)} | ${fmt(g.node, 1)} | ${fmt(g.nginx, 1)}`, target: `<= ${LIMIT_MiB}`, verdict: verdict(worstGrowth <= LIMIT_MiB) },
  );

  const slowUrl = `${trove.url}/raw/files/slow.bin`;
  const slow = [];
  for (let i = 0; i < SLOW_RUNS; i++) {
    const m = await withMemory(trove, () => curlDownload(slowUrl, { limitRate: '20M' }), { everyMs: 200 });
    if (m.result.status !== 200 || m.result.downloaded !== SLOW) throw new Error(`slow: ${m.result.status}, ${m.result.downloaded} bytes`);
    slow.push({ rate: SLOW / m.result.seconds / 1e6, growth: mib(m.growth), ...flatness(m.samples), before: mib(m.rssBefore) });
  }
  const sg = spread(slow.map((s) => s.growth));
  const sr = spread(slow.map((s) => s.rangeMiB));
  const sd = spread(slow.map((s) => s.driftMiB));
  // Flat: no upward drift while bytes keep flowing (RSS falling as V8 returns memory is fine).
  const flat = sg.max <= LIMIT_MiB && sd.max <= 8;
  line(`256 MiB at 20 MB/s: ${fmt(spread(slow.map((s) => s.rate)), 1)} MB/s; RSS before ${slow[0].before.toFixed(0)} MiB, growth ${fmt(sg, 1)} MiB,`);
  line(`        RSS range over the transfer ${fmt(sr, 1)} MiB, drift first->last fifth ${fmt(sd, 1)} MiB (flat: ${verdict(flat)})`);
  rows.push(
    { name: '256 MiB @20 MB/s: RSS growth MiB', value: fmt(sg, 1), target: `<= ${LIMIT_MiB}, flat`, verdict: verdict(flat) },
    { name: '256 MiB @20 MB/s: RSS range / drift MiB', value: `${fmt(sr, 1)} / ${fmt(sd, 1)}` },
  );
} finally {
  await Promise.all([trove.stop(), node.stop(), nginx.stop()]);
  clean();
}
summary({ id: 'W3', title: '1 GiB download and a slow client', rows });
