#!/usr/bin/env node
/**
 * W2 (BENCH.md, issue 19): small GETs with credentials on a PRIVATE repository against W1
 * (anonymous GETs of the same bytes from a public repository) on the same server, in the same
 * run, interleaved: a read token over Basic, the admin password over Basic (after its first,
 * scrypt-priced check) and a publish session token over Basic. Both W1 raw files.
 * Target: each >= 0.9x anonymous.
 */
import { SMALL_FILES, publishSmallFiles } from './lib/small-get.mjs';
import { tempDir } from './lib/files.mjs';
import { get } from './lib/net.mjs';
import { cpuSeconds } from './lib/proc.mjs';
import { header, line, summary, verdict } from './lib/report.mjs';
import { fmt, fmtRatio, ratio, spread } from './lib/stats.mjs';
import { ADMIN, api, basicAuth, ensureBuilt, startTrove } from './lib/trove.mjs';
import { wrk } from './lib/wrk.mjs';

// Many short runs, interleaved: on this shared VM a neighbour can slow one 5 s run by half, and
// with 12 runs of 2 s such a stretch lands on every mode alike instead of on one mode's median.
const RUNS = Number(process.env.BENCH_RUNS ?? 12);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 2);
const CONNECTIONS = 32;

header('W2', `small GET with credentials on a private repository vs anonymous (wrk -t1 -c${CONNECTIONS} -d${SECONDS}s, ${RUNS} runs, median [min-max])`);
await ensureBuilt();
const { dir, clean } = tempDir('w2');
const trove = await startTrove();
const rows = [];
try {
  await publishSmallFiles(trove, dir, 'public', { anonymousRead: true });
  const publishToken = await publishSmallFiles(trove, dir, 'private', { anonymousRead: false });
  const created = await api(trove.url, 'POST', '/api/tokens', { asAdmin: true, body: { name: 'bench', expires_in_days: 1 } });
  if (created.status !== 201 || !created.body.token) throw new Error(`POST /api/tokens: ${created.status} ${JSON.stringify(created.body)}`);
  const modes = {
    anonymous: { repo: 'public', headers: {} },
    'read token': { repo: 'private', headers: { Authorization: basicAuth('reader', created.body.token) } },
    password: { repo: 'private', headers: { Authorization: basicAuth(ADMIN.user, ADMIN.password) } },
    'publish token': { repo: 'private', headers: { Authorization: basicAuth('ci', publishToken) } },
  };
  for (const f of SMALL_FILES) {
    const url = (m) => `${trove.url}/raw/${m.repo}/${f.name}`;
    for (const [mode, m] of Object.entries(modes)) {
      const r = await get(url(m), { headers: m.headers });
      if (r.status !== 200 || r.body.length !== f.bytes) throw new Error(`${mode}: ${r.status} ${r.body.slice(0, 200)}`);
      // The private repository refuses an anonymous caller: the credential is what is measured.
      if (mode !== 'anonymous' && (await get(url(m))).status !== 401) throw new Error(`raw/private answers without credentials`);
      await wrk(url(m), { seconds: 2, connections: CONNECTIONS, headers: m.headers }); // warm-up; the password's scrypt runs here
    }
    const rps = Object.fromEntries(Object.keys(modes).map((k) => [k, []]));
    const cpu = Object.fromEntries(Object.keys(modes).map((k) => [k, []]));
    for (let i = 0; i < RUNS; i++) {
      for (const [mode, m] of Object.entries(modes)) {
        const cpu0 = cpuSeconds(trove.pid);
        const r = await wrk(url(m), { seconds: SECONDS, connections: CONNECTIONS, headers: m.headers });
        cpu[mode].push((1e6 * (cpuSeconds(trove.pid) - cpu0)) / r.requests);
        // A few timeouts (wrk gives up after 2 s) happen when a password's 60 s check expires and scrypt
        // runs on a busy core while every connection waits for it; a run that mostly failed is no figure.
        if (r.non2xx || r.errors > r.requests / 20) throw new Error(`${mode}: ${r.non2xx} non-2xx and ${r.errors} socket errors in ${r.requests} requests`);
        if (r.errors) line(`${f.name} ${mode}: ${r.errors} socket errors (timeouts) in ${r.requests} requests`);
        rps[mode].push(r.rps);
      }
    }
    for (const [mode, v] of Object.entries(rps)) {
      line(`${f.name} runs ${mode}: ${v.map((x) => x.toFixed(0)).join(' ')} (server CPU per request ${cpu[mode].map((x) => x.toFixed(1)).join(' ')} us)`);
    }
    const s = Object.fromEntries(Object.entries(rps).map(([k, v]) => [k, spread(v)]));
    const c = Object.fromEntries(Object.entries(cpu).map(([k, v]) => [k, spread(v)]));
    line(`${f.name} anonymous, public repo (W1)  ${fmt(s.anonymous)} req/s, ${fmt(c.anonymous, 1)} CPU us/request`);
    rows.push({ name: `${f.name} anonymous (W1) req/s`, value: fmt(s.anonymous) });
    for (const mode of Object.keys(modes).filter((m) => m !== 'anonymous')) {
      const r = ratio(s[mode].median, s.anonymous.median);
      const cr = ratio(c.anonymous.median, c[mode].median);
      line(`${f.name} ${mode} over Basic, private repo  ${fmt(s[mode])} req/s  ${mode}/anonymous ${fmtRatio(r)} (target >= 0.90x: ${verdict(r >= 0.9)}); ${fmt(c[mode], 1)} CPU us/request, anonymous/${mode} ${fmtRatio(cr)}`);
      rows.push(
        { name: `${f.name} ${mode} req/s`, value: fmt(s[mode]) },
        { name: `${f.name} ${mode} / anonymous`, value: fmtRatio(r), target: '>= 0.90x', verdict: verdict(r >= 0.9) },
        { name: `${f.name} CPU us/request anonymous / ${mode}`, value: `${fmt(c.anonymous, 1)} / ${fmt(c[mode], 1)} = ${fmtRatio(cr)}` },
      );
    }
  }
} finally {
  await trove.stop();
  clean();
}
summary({ id: 'W2', title: 'small GET with credentials on a private repository', rows });
