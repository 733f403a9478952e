#!/usr/bin/env node
/**
 * Deploy of 1,000 small Maven artifacts (jar + pom + their .sha1/.md5, then the artifact
 * metadata with its checksums: Maven's request order) by 8 concurrent clients. 250
 * artifacts x 4 versions, so clients also race on shared metadata. Figures: artifacts/s,
 * requests/s, the server's peak RSS (VmHWM, reset before the run), and afterwards a check
 * that every metadata lists its 4 versions. Reference in the same run: the plain node:http
 * server (bench/lib/node-ref-server.mjs: pipeline + sha256 + fsync + rename per PUT)
 * receiving the same request sequence, so the ratio shows Trove's overhead per deploy.
 * Runs against the built server (apps/server/dist, or BENCH_TROVE_MAIN); builds nothing.
 * Knobs: BENCH_RUNS (default 3), BENCH_ARTIFACTS (default 1000), BENCH_CLIENTS (default 8).
 */
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './lib/files.mjs';
import { cpuSeconds, resetPeak } from './lib/proc.mjs';
import { median, mib as mibOf } from './lib/stats.mjs';
import { startNodeReference } from './lib/references.mjs';
import { header, line, summary } from './lib/report.mjs';
import { api, basicAuth, startTrove } from './lib/trove.mjs';
import { publishSession } from './lib/publish.mjs';

if (!process.env.BENCH_PINNED) {
  const r = spawnSync('taskset', ['-c', '1', process.execPath, ...process.argv.slice(1)], { stdio: 'inherit', env: { ...process.env, BENCH_PINNED: '1' } });
  process.exit(r.status ?? 1);
}

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const ARTIFACTS = Number(process.env.BENCH_ARTIFACTS ?? 1000);
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 8);
const VERSIONS = 4;

const hex = (alg, b) => createHash(alg).update(b).digest('hex');
const metadataXml = (g, a, versions) => `<?xml version="1.0" encoding="UTF-8"?>
<metadata>
  <groupId>${g}</groupId>
  <artifactId>${a}</artifactId>
  <versioning>
    <latest>${versions[versions.length - 1]}</latest>
    <release>${versions[versions.length - 1]}</release>
    <versions>
${versions.map((v) => `      <version>${v}</version>`).join('\n')}
    </versions>
    <lastUpdated>${new Date().toISOString().replace(/[-:T]/g, '').slice(0, 14)}</lastUpdated>
  </versioning>
</metadata>
`;
const versionsIn = (xml) => [...xml.matchAll(/<version>([^<]+)<\/version>/g)].map((m) => m[1]);

/** The deploys of one run: artifact i is version (i % 4) of artifact (i / 4), jar 2-10 KiB. */
function plan(run) {
  return Array.from({ length: ARTIFACTS }, (_, i) => ({
    g: `org.bench.r${run}.g${i % 10}`,
    a: `lib${Math.floor(i / VERSIONS)}`,
    v: `1.${i % VERSIONS}.0`,
    jar: randomBytes(2048 + ((i * 7919) % 8192)),
  }));
}

function counter() {
  let requests = 0;
  const put = async (url, body, auth, { dirs } = {}) => {
    if (dirs) mkdirSync(dirs, { recursive: true }); // the plain reference stores into existing directories only
    requests++;
    const r = await fetch(url, { method: 'PUT', body, headers: auth ? { Authorization: auth } : {} });
    await r.arrayBuffer();
    if (r.status !== 200 && r.status !== 201) throw new Error(`PUT ${url}: ${r.status}`);
  };
  const get = async (url, auth) => {
    requests++;
    const r = await fetch(url, { headers: auth ? { Authorization: auth } : {} });
    return { status: r.status, text: await r.text() };
  };
  return { put, get, count: () => requests };
}

/** Runs `plan` through `clients` workers against `base` (…/maven/repo or the reference root URL). */
async function deployAll(items, { base, auth, refRoot }) {
  const http = counter();
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const { g, a, v, jar } = items[next++];
      const artifactPath = `${g.replace(/\./g, '/')}/${a}`;
      const dirs = refRoot ? join(refRoot, artifactPath, v) : undefined;
      const pom = Buffer.from(`<project><modelVersion>4.0.0</modelVersion><groupId>${g}</groupId><artifactId>${a}</artifactId><version>${v}</version></project>\n`);
      for (const [name, body] of [[`${a}-${v}.jar`, jar], [`${a}-${v}.pom`, pom]]) {
        await http.put(`${base}/${artifactPath}/${v}/${name}`, body, auth, { dirs });
        await http.put(`${base}/${artifactPath}/${v}/${name}.sha1`, hex('sha1', body), auth);
        await http.put(`${base}/${artifactPath}/${v}/${name}.md5`, hex('md5', body), auth);
      }
      const cur = await http.get(`${base}/${artifactPath}/maven-metadata.xml`, auth);
      const known = cur.status === 200 ? versionsIn(cur.text) : [];
      const xml = metadataXml(g, a, [...new Set([...known, v])]);
      await http.put(`${base}/${artifactPath}/maven-metadata.xml`, xml, auth);
      await http.put(`${base}/${artifactPath}/maven-metadata.xml.sha1`, hex('sha1', xml), auth);
      await http.put(`${base}/${artifactPath}/maven-metadata.xml.md5`, hex('md5', xml), auth);
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: CLIENTS }, worker));
  return { seconds: (performance.now() - started) / 1000, requests: http.count() };
}

const range = (xs) => `${Math.min(...xs).toFixed(1)}-${Math.max(...xs).toFixed(1)}`;
const mib = (b) => mibOf(b).toFixed(1);

header('maven-deploy-1000', `${ARTIFACTS} artifacts (jar + pom + checksums + metadata) by ${CLIENTS} concurrent clients, ${RUNS} runs`);
const { dir, clean } = tempDir('maven-deploy');
const trove = await startTrove();
const ref = await startNodeReference(join(dir, 'ref'), { cpu: '0' });
mkdirSync(join(dir, 'ref'), { recursive: true });
const rows = [];
try {
  const created = await api(trove.url, 'POST', '/api/repos', { asAdmin: true, body: { name: 'bench', format: 'maven', config: {}, anonymous_read: true } });
  if (created.status !== 201) throw new Error(`creating the maven repo: ${created.status} ${JSON.stringify(created.body)}`);
  const auth = basicAuth('ci', await publishSession(trove.url, 'bench'));
  // Warm-up: JIT, SQLite page cache, connection pools.
  await deployAll(plan(0).slice(0, 80), { base: `${trove.url}/maven/bench`, auth });
  const troveRates = [];
  const refRates = [];
  const peaks = [];
  const troveCpu = [];
  const refCpu = [];
  let lost = 0;
  for (let run = 1; run <= RUNS; run++) {
    const items = plan(run);
    const before = trove.memory().rss;
    const reset = resetPeak(trove.pid);
    let cpu = cpuSeconds(trove.pid);
    const t = await deployAll(items, { base: `${trove.url}/maven/bench`, auth });
    troveCpu.push(((cpuSeconds(trove.pid) - cpu) * 1000) / ARTIFACTS);
    const peak = reset ? trove.memory().hwm : NaN;
    peaks.push(peak);
    cpu = cpuSeconds(ref.pid);
    const r = await deployAll(items, { base: ref.url, refRoot: join(dir, 'ref') });
    refCpu.push(((cpuSeconds(ref.pid) - cpu) * 1000) / ARTIFACTS);
    troveRates.push(ARTIFACTS / t.seconds);
    refRates.push(ARTIFACTS / r.seconds);
    // Every artifact's metadata must list all of its versions, although clients raced on it.
    const byArtifact = new Map();
    for (const it of items) byArtifact.set(`${it.g.replace(/\./g, '/')}/${it.a}`, [...(byArtifact.get(`${it.g.replace(/\./g, '/')}/${it.a}`) ?? []), it.v]);
    let runLost = 0;
    for (const [path, versions] of byArtifact) {
      const listed = versionsIn(await (await fetch(`${trove.url}/maven/bench/${path}/maven-metadata.xml`)).text());
      runLost += versions.filter((v) => !listed.includes(v)).length;
    }
    lost += runLost;
    line(
      `run ${run}: trove ${(ARTIFACTS / t.seconds).toFixed(1)} artifacts/s (${(t.requests / t.seconds).toFixed(0)} req/s, ${t.seconds.toFixed(2)} s), ` +
        `plain node ${(ARTIFACTS / r.seconds).toFixed(1)} artifacts/s; server CPU per artifact ${troveCpu[run - 1].toFixed(1)} ms (plain node ${refCpu[run - 1].toFixed(1)} ms); server RSS before ${mib(before)} MiB, peak ${mib(peak)} MiB; lost versions ${runLost}`,
    );
  }
  const ratio = median(troveRates) / median(refRates);
  rows.push(
    { name: 'trove artifacts/s (median, min-max)', value: `${median(troveRates).toFixed(1)} (${range(troveRates)})` },
    { name: 'plain node PUT reference artifacts/s', value: `${median(refRates).toFixed(1)} (${range(refRates)})` },
    { name: 'ratio trove / plain node', value: `${ratio.toFixed(2)}x` },
    { name: 'server CPU ms per artifact (median): trove / plain node', value: `${median(troveCpu).toFixed(1)} / ${median(refCpu).toFixed(1)}` },
    { name: 'server peak RSS during a run (max)', value: `${mib(Math.max(...peaks))} MiB` },
    { name: 'lost versions in metadata', value: lost, target: '0', verdict: lost === 0 ? 'meets' : 'MISSES' },
  );
} finally {
  await trove.stop();
  await ref.stop();
  clean();
}
for (const r of rows) line(`${r.name}: ${r.value}`);
summary({ id: 'maven-deploy-1000', title: `Deploy of ${ARTIFACTS} Maven artifacts, ${CLIENTS} clients`, rows });
