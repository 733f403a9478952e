#!/usr/bin/env node
/**
 * W1 (BENCH.md): small anonymous GETs of a raw file, Trove against three references in the
 * same run: a plain node:http server streaming the same file with fs streams, a bare node:http
 * server answering the same bytes from memory (the platform's ceiling for a small response,
 * issue 19) and nginx (sendfile): a 1 KiB and a 10 KiB raw file, a Maven pom and a
 * maven-metadata.xml (BENCH.md's three kinds). Server and references pinned to core 0, wrk to
 * core 1; runs interleaved so drift hits all four alike.
 * Targets: Trove >= 0.9x the streaming node server (BENCH.md), >= 0.6x the in-memory one (issue 19).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { SMALL_FILES, publishSmallFiles } from './lib/small-get.mjs';
import { tempDir } from './lib/files.mjs';
import { publishSession } from './lib/publish.mjs';
import { get } from './lib/net.mjs';
import { cpuSeconds, resetPeak } from './lib/proc.mjs';
import { startMemoryReference, startNginx, startNodeReference } from './lib/references.mjs';
import { header, line, summary, verdict } from './lib/report.mjs';
import { fmt, fmtRatio, mib, ratio, spread } from './lib/stats.mjs';
import { api, basicAuth, ensureBuilt, startTrove } from './lib/trove.mjs';
import { wrk } from './lib/wrk.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = 32;

header('W1', `small GET, anonymous (wrk -t1 -c${CONNECTIONS} -d${SECONDS}s, ${RUNS} runs, median [min-max])`);
await ensureBuilt();
const { dir, clean } = tempDir('w1');
const trove = await startTrove();
const node = await startNodeReference(dir);
const memory = await startMemoryReference(dir);
const nginx = await startNginx(dir);
const rows = [];
try {
  await publishSmallFiles(trove, dir, 'files', { anonymousRead: true });
  // BENCH_FILES="small-1k.txt,maven pom" measures only those (labels as printed).
  const only = process.env.BENCH_FILES?.split(',').map((s) => s.trim()).filter(Boolean);
  const files = [...SMALL_FILES.map((f) => ({ ...f, label: f.name, trovePath: `raw/files/${f.name}` })), ...(await publishMaven(trove, dir))].filter(
    (f) => !only || only.includes(f.label),
  );
  const pids = { trove: trove.pid, node: node.pid, memory: memory.pid, nginx: nginx.pid };
  const targets = {
    trove: (f) => `${trove.url}/${f.trovePath}`,
    node: (f) => `${node.url}/${f.name}`,
    memory: (f) => `${memory.url}/${f.name}`,
    nginx: (f) => `${nginx.url}/${f.name}`,
  };
  resetPeak(trove.pid);
  const before = trove.memory();
  for (const f of files) {
    for (const [who, url] of Object.entries(targets)) {
      const r = await get(url(f));
      if (r.status !== 200 || r.body.length !== f.bytes) throw new Error(`${who} answered ${r.status} with ${r.body.length} bytes for ${f.label}`);
      await wrk(url(f), { seconds: 2, connections: CONNECTIONS }); // warm-up (JIT, page cache, prepared statements)
    }
    const rps = { trove: [], node: [], memory: [], nginx: [] };
    const troveCpu = [];
    // Server CPU per answered request (user + system): steadier than req/s when other work shares the pinned core.
    const usPer = { trove: [], node: [], memory: [], nginx: [] };
    for (let i = 0; i < RUNS; i++) {
      for (const [who, url] of Object.entries(targets)) {
        const cpu0 = cpuSeconds(pids[who]);
        const r = await wrk(url(f), { seconds: SECONDS, connections: CONNECTIONS });
        const cpu = cpuSeconds(pids[who]) - cpu0;
        if (who === 'trove') troveCpu.push((100 * cpu) / SECONDS);
        usPer[who].push((1e6 * cpu) / r.requests);
        if (r.non2xx) throw new Error(`${who}: ${r.non2xx} non-2xx answers`);
        // A few socket timeouts happen when another process takes the pinned core; a run that mostly failed is no figure.
        if (r.errors > r.requests / 100) throw new Error(`${who}: ${r.errors} socket errors in ${r.requests} requests`);
        if (r.errors) line(`${who}: ${r.errors} socket errors in ${r.requests} requests (machine busy)`);
        rps[who].push(r.rps);
      }
    }
    // Every run, and how busy the server was: a run far below the others with the server idle is a stall, not a figure.
    line(`${f.label} runs: trove ${rps.trove.map((x) => x.toFixed(0)).join(' ')} (server CPU ${troveCpu.map((x) => x.toFixed(0) + '%').join(' ')}) | node ${rps.node.map((x) => x.toFixed(0)).join(' ')} | memory ${rps.memory.map((x) => x.toFixed(0)).join(' ')} | nginx ${rps.nginx.map((x) => x.toFixed(0)).join(' ')}`);
    const s = Object.fromEntries(Object.entries(rps).map(([k, v]) => [k, spread(v)]));
    const vsNode = ratio(s.trove.median, s.node.median);
    const vsMemory = ratio(s.trove.median, s.memory.median);
    const cpuPer = Object.fromEntries(Object.entries(usPer).map(([k, v]) => [k, spread(v)]));
    line(`${f.label} server CPU per request, us: trove ${fmt(cpuPer.trove, 1)} | node ${fmt(cpuPer.node, 1)} | memory ${fmt(cpuPer.memory, 1)} | nginx ${fmt(cpuPer.nginx, 1)}; memory/trove ${fmtRatio(ratio(cpuPer.memory.median, cpuPer.trove.median))}`);
    const vsNginx = ratio(s.trove.median, s.nginx.median);
    line(`${f.label.padEnd(14)} trove ${fmt(s.trove)} req/s | node:http streaming ${fmt(s.node)} | node:http from memory ${fmt(s.memory)} | nginx ${fmt(s.nginx)}`);
    line(
      `${' '.repeat(14)} trove/node ${fmtRatio(vsNode)} (target >= 0.90x: ${verdict(vsNode >= 0.9)}) | trove/memory ${fmtRatio(vsMemory)} (target >= 0.60x: ${verdict(vsMemory >= 0.6)}) | trove/nginx ${fmtRatio(vsNginx)}`,
    );
    rows.push(
      { name: `${f.label} req/s trove | node | memory | nginx`, value: `${fmt(s.trove)} | ${fmt(s.node)} | ${fmt(s.memory)} | ${fmt(s.nginx)}` },
      { name: `${f.label} trove/node`, value: fmtRatio(vsNode), target: '>= 0.90x', verdict: verdict(vsNode >= 0.9) },
      { name: `${f.label} trove/memory`, value: fmtRatio(vsMemory), target: '>= 0.60x', verdict: verdict(vsMemory >= 0.6) },
      { name: `${f.label} trove/nginx`, value: fmtRatio(vsNginx) },
      { name: `${f.label} CPU us/request trove | node | memory | nginx`, value: `${fmt(cpuPer.trove, 1)} | ${fmt(cpuPer.node, 1)} | ${fmt(cpuPer.memory, 1)} | ${fmt(cpuPer.nginx, 1)}` },
    );
  }
  const after = trove.memory();
  line(`trove RSS ${mib(before.rss).toFixed(0)} MiB before, peak ${mib(after.hwm).toFixed(0)} MiB during the runs`);
  rows.push({ name: 'trove RSS before / peak during', value: `${mib(before.rss).toFixed(0)} / ${mib(after.hwm).toFixed(0)} MiB` });
} finally {
  await Promise.all([trove.stop(), node.stop(), memory.stop(), nginx.stop()]);
  clean();
}
summary({ id: 'W1', title: 'small GET, anonymous', rows });

/**
 * Deploys a pom and the artifact's maven-metadata.xml to an anonymous Maven repository, and
 * writes the bytes Trove then serves at the same paths under `dir` for the references.
 */
async function publishMaven(trove, dir) {
  const created = await api(trove.url, 'POST', '/api/repos', { asAdmin: true, body: { name: 'maven', format: 'maven', config: {}, anonymous_read: true } });
  if (created.status !== 201) throw new Error(`creating the maven repo: ${created.status} ${JSON.stringify(created.body)}`);
  const auth = { Authorization: basicAuth('ci', await publishSession(trove.url, 'maven')) };
  const base = 'com/example/bench/bench-lib';
  const pom = `<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>com.example.bench</groupId>
  <artifactId>bench-lib</artifactId>
  <version>1.0.0</version>
  <packaging>jar</packaging>
  <description>${'A library the W1 benchmark reads. '.repeat(40)}</description>
</project>
`;
  const metadata = `<?xml version="1.0" encoding="UTF-8"?>
<metadata><groupId>com.example.bench</groupId><artifactId>bench-lib</artifactId><versioning><latest>1.0.0</latest><release>1.0.0</release><versions><version>1.0.0</version></versions><lastUpdated>20261123000000</lastUpdated></versioning></metadata>
`;
  const out = [];
  for (const [path, body] of [[`${base}/1.0.0/bench-lib-1.0.0.pom`, pom], [`${base}/maven-metadata.xml`, metadata]]) {
    const put = await fetch(`${trove.url}/maven/maven/${path}`, { method: 'PUT', headers: auth, body });
    if (put.status !== 201 && put.status !== 200) throw new Error(`deploying ${path}: ${put.status} ${await put.text()}`);
    const served = await get(`${trove.url}/maven/maven/${path}`);
    if (served.status !== 200) throw new Error(`reading ${path} back: ${served.status}`);
    const name = `maven/${path}`;
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), served.body);
    out.push({ name, label: path.endsWith('.pom') ? 'maven pom' : 'maven-metadata', bytes: served.body.length, trovePath: `maven/maven/${path}` });
  }
  return out;
}
