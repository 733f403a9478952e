#!/usr/bin/env node
/**
 * W6 (BENCH.md): 64 concurrent deploys of distinct versions of one Maven artifact while a
 * reader keeps fetching and parsing maven-metadata.xml. Each deploy follows Maven's own
 * request order (clients README): PUT jar, .sha1, .md5, pom, .sha1, .md5, GET the artifact
 * metadata (404 on the first), PUT it with its version added, then its .sha1 and .md5.
 * Every deploy starts from whatever metadata it read, so without a server-side merge most
 * versions would be lost. Target: 0 lost versions, 0 parse errors (no reference).
 * Runs against the built server (apps/server/dist, or BENCH_TROVE_MAIN); builds nothing.
 * Knobs: BENCH_RUNS (default 3), BENCH_DEPLOYS (default 64).
 */
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { header, line, summary, verdict } from './lib/report.mjs';
import { ROOT, api, basicAuth, startTrove } from './lib/trove.mjs';
import { publishSession } from './lib/publish.mjs';
import { resetPeak } from './lib/proc.mjs';

// The load generator runs on core 1, the server on core 0 (BENCH.md protocol).
if (!process.env.BENCH_PINNED) {
  const r = spawnSync('taskset', ['-c', '1', process.execPath, ...process.argv.slice(1)], { stdio: 'inherit', env: { ...process.env, BENCH_PINNED: '1' } });
  process.exit(r.status ?? 1);
}

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const DEPLOYS = Number(process.env.BENCH_DEPLOYS ?? 64);
// The reader parses with the same library the server uses, resolved from the Maven package.
const { XMLParser, XMLValidator } = createRequire(join(ROOT, 'packages/format-maven/package.json'))('fast-xml-parser');
const parser = new XMLParser({ parseTagValue: false, processEntities: false, isArray: (n) => n === 'version' });

const hex = (alg, b) => createHash(alg).update(b).digest('hex');

function versionsOf(xml) {
  if (XMLValidator.validate(xml) !== true) return null;
  const doc = parser.parse(xml);
  const v = doc?.metadata?.versioning?.versions?.version;
  return Array.isArray(v) ? v.map(String) : doc?.metadata ? [] : null;
}

const metadataXml = (g, a, versions, latest) => `<?xml version="1.0" encoding="UTF-8"?>
<metadata>
  <groupId>${g}</groupId>
  <artifactId>${a}</artifactId>
  <versioning>
    <latest>${latest}</latest>
    <release>${latest}</release>
    <versions>
${versions.map((v) => `      <version>${v}</version>`).join('\n')}
    </versions>
    <lastUpdated>${new Date().toISOString().replace(/[-:T]/g, '').slice(0, 14)}</lastUpdated>
  </versioning>
</metadata>
`;

async function put(url, body, auth) {
  const r = await fetch(url, { method: 'PUT', body, headers: { Authorization: auth } });
  await r.arrayBuffer();
  if (r.status !== 200 && r.status !== 201) throw new Error(`PUT ${url}: ${r.status}`);
}

/** One `mvn deploy` of g:a:v, request for request. */
async function deploy(base, auth, g, a, v) {
  const dir = `${base}/${v}`;
  const jar = randomBytes(4096);
  const pom = Buffer.from(`<project><modelVersion>4.0.0</modelVersion><groupId>${g}</groupId><artifactId>${a}</artifactId><version>${v}</version></project>\n`);
  for (const [name, body] of [[`${a}-${v}.jar`, jar], [`${a}-${v}.pom`, pom]]) {
    await put(`${dir}/${name}`, body, auth);
    await put(`${dir}/${name}.sha1`, hex('sha1', body), auth);
    await put(`${dir}/${name}.md5`, hex('md5', body), auth);
  }
  const cur = await fetch(`${base}/maven-metadata.xml`, { headers: { Authorization: auth } });
  const text = await cur.text();
  const known = cur.status === 200 ? versionsOf(text) ?? [] : [];
  const xml = metadataXml(g, a, [...new Set([...known, v])], v);
  await put(`${base}/maven-metadata.xml`, xml, auth);
  await put(`${base}/maven-metadata.xml.sha1`, hex('sha1', xml), auth);
  await put(`${base}/maven-metadata.xml.md5`, hex('md5', xml), auth);
}

header('W6', `${DEPLOYS} concurrent deploys of one artifact's versions while a reader parses maven-metadata.xml (${RUNS} runs)`);
const trove = await startTrove({ env: process.env.BENCH_TROVE_ENV ? JSON.parse(process.env.BENCH_TROVE_ENV) : {} });
const rows = [];
let lostTotal = 0;
let parseErrors = 0;
let regressions = 0;
let checksumErrors = 0;
let reads = 0;
const seconds = [];
try {
  const created = await api(trove.url, 'POST', '/api/repos', { asAdmin: true, body: { name: 'w6', format: 'maven', config: {}, anonymous_read: true } });
  if (created.status !== 201) throw new Error(`creating the maven repo: ${created.status} ${JSON.stringify(created.body)}`);
  const auth = basicAuth('ci', await publishSession(trove.url, 'w6'));
  // The peak of the runs, not of start-up (the bootstrap admin's scrypt alone peaks far above idle).
  const peakReset = resetPeak(trove.pid);
  for (let run = 1; run <= RUNS; run++) {
    const g = 'org.bench.w6';
    const a = `widget${run}`;
    const base = `${trove.url}/maven/w6/${g.replace(/\./g, '/')}/${a}`;
    const versions = Array.from({ length: DEPLOYS }, (_, i) => `1.${i}.0`);
    let done = false;
    let runErrors = 0;
    let runReads = 0;
    let runRegressions = 0;
    const reader = (async () => {
      let seen = new Set();
      while (!done) {
        const r = await fetch(`${base}/maven-metadata.xml`);
        const text = await r.text();
        if (r.status === 404) continue;
        runReads++;
        const v = r.status === 200 ? versionsOf(text) : null;
        if (!v) {
          runErrors++;
          continue;
        }
        // A version once visible must stay visible: a drop would be a lost update, even if healed later.
        if ([...seen].some((x) => !v.includes(x))) runRegressions++;
        seen = new Set(v);
      }
    })();
    const started = performance.now();
    await Promise.all(versions.map((v) => deploy(base, auth, g, a, v)));
    const secs = (performance.now() - started) / 1000;
    done = true;
    await reader;
    const finalRes = await fetch(`${base}/maven-metadata.xml`);
    const finalXml = await finalRes.text();
    const final = versionsOf(finalXml) ?? [];
    const lost = versions.filter((v) => !final.includes(v)).length;
    const sha1 = await (await fetch(`${base}/maven-metadata.xml.sha1`)).text();
    if (sha1.trim() !== hex('sha1', finalXml)) checksumErrors++;
    line(`run ${run}: ${DEPLOYS} deploys in ${secs.toFixed(2)} s; final metadata lists ${final.length} versions, lost ${lost}; reader: ${runReads} parses, ${runErrors} errors, ${runRegressions} times a seen version disappeared`);
    lostTotal += lost;
    parseErrors += runErrors;
    regressions += runRegressions;
    reads += runReads;
    seconds.push(secs);
  }
  const mem = trove.memory();
  line(`server peak RSS during the runs ${(mem.hwm / 1048576).toFixed(1)} MiB${peakReset ? '' : ' (includes start-up: VmHWM could not be reset)'}`);
  rows.push(
    { name: 'lost versions (all runs)', value: lostTotal, target: '0', verdict: verdict(lostTotal === 0) },
    { name: 'metadata parse errors (reader)', value: parseErrors, target: '0', verdict: verdict(parseErrors === 0) },
    { name: 'versions that disappeared once seen', value: regressions, target: '0', verdict: verdict(regressions === 0) },
    { name: 'metadata .sha1 not matching the served document', value: checksumErrors, target: '0', verdict: verdict(checksumErrors === 0) },
    { name: 'reader parses', value: reads },
    { name: 'seconds per run (median)', value: seconds.sort((x, y) => x - y)[Math.floor(seconds.length / 2)].toFixed(2) },
  );
} finally {
  await trove.stop();
}
for (const r of rows) line(`${r.name}: ${r.value}${r.verdict ? ` (${r.verdict})` : ''}`);
summary({ id: 'W6', title: 'Maven metadata under concurrent deploys', rows });
process.exitCode = lostTotal || parseErrors || regressions || checksumErrors ? 1 : 0;
