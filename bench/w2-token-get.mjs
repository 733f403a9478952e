#!/usr/bin/env node
/**
 * W2 (BENCH.md): W1 with a read token over Basic auth, against W1 (anonymous) in the
 * same run and on the same server. Read tokens come from `POST /api/tokens`; while
 * that route is missing the token row says "skipped" and the admin password over
 * Basic (cached after the first scrypt check) is measured instead, labelled as such.
 * Target: token >= 0.9x anonymous.
 */
import { SMALL_FILES, publishSmallFiles } from './lib/small-get.mjs';
import { tempDir } from './lib/files.mjs';
import { get } from './lib/net.mjs';
import { header, line, summary, verdict } from './lib/report.mjs';
import { fmt, fmtRatio, ratio, spread } from './lib/stats.mjs';
import { ADMIN, adminAuth, api, basicAuth, ensureBuilt, startTrove } from './lib/trove.mjs';
import { wrk } from './lib/wrk.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = 32;
const FILE = SMALL_FILES[0];

/** A read token for the admin, by Basic password or, failing that, by a UI session; null when the route does not exist. */
async function readToken(url) {
  const body = { name: 'bench', expires_in_days: 1 };
  const viaBasic = await api(url, 'POST', '/api/tokens', { auth: adminAuth(), body });
  if (viaBasic.status === 201 && viaBasic.body.token) return { token: viaBasic.body.token, how: 'POST /api/tokens with the admin password' };
  if (viaBasic.status === 404) return { token: null, why: 'POST /api/tokens answers 404' };
  const login = await fetch(`${url}/api/auth/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ username: ADMIN.user, password: ADMIN.password }),
  });
  const cookie = (login.headers.getSetCookie?.() ?? []).map((c) => c.split(';')[0]).find((c) => c.startsWith('tr_session='));
  if (cookie) {
    const res = await fetch(`${url}/api/tokens`, { method: 'POST', headers: { 'Content-Type': 'application/json', Cookie: cookie, Origin: url }, body: JSON.stringify(body) });
    const json = await res.json().catch(() => ({}));
    if (res.status === 201 && json.token) return { token: json.token, how: 'POST /api/tokens with a UI session' };
    return { token: null, why: `POST /api/tokens with a session answered ${res.status} ${JSON.stringify(json)}` };
  }
  return { token: null, why: `POST /api/tokens answered ${viaBasic.status} ${JSON.stringify(viaBasic.body)}; no session from /api/auth/login (${login.status})` };
}

header('W2', `small GET with credentials vs anonymous, ${FILE.name} (wrk -t1 -c${CONNECTIONS} -d${SECONDS}s, ${RUNS} runs)`);
await ensureBuilt();
const { dir, clean } = tempDir('w2');
const trove = await startTrove();
const rows = [];
const notes = [];
try {
  await publishSmallFiles(trove, dir, 'public', { anonymousRead: true });
  await publishSmallFiles(trove, dir, 'private', { anonymousRead: false });
  const modes = { anonymous: { url: `${trove.url}/raw/public/${FILE.name}`, headers: {} } };
  const tok = await readToken(trove.url);
  if (tok.token) {
    modes.token = { url: `${trove.url}/raw/private/${FILE.name}`, headers: { Authorization: basicAuth('reader', tok.token) } };
    notes.push(`read token from ${tok.how}`);
  } else {
    line(`read token: skipped: read tokens not available (${tok.why})`);
    notes.push(`skipped: read tokens not available (${tok.why})`);
    rows.push({ name: 'read token / anonymous', value: 'skipped: read tokens not available', target: '>= 0.90x' });
  }
  modes.password = { url: `${trove.url}/raw/private/${FILE.name}`, headers: { Authorization: basicAuth(ADMIN.user, ADMIN.password) } };

  for (const [mode, m] of Object.entries(modes)) {
    const r = await get(m.url, { headers: m.headers });
    if (r.status !== 200) throw new Error(`${mode}: ${r.status} ${r.body}`);
    await wrk(m.url, { seconds: 2, connections: CONNECTIONS, headers: m.headers });
  }
  const rps = Object.fromEntries(Object.keys(modes).map((k) => [k, []]));
  for (let i = 0; i < RUNS; i++) {
    for (const [mode, m] of Object.entries(modes)) {
      const r = await wrk(m.url, { seconds: SECONDS, connections: CONNECTIONS, headers: m.headers });
      if (r.non2xx || r.errors) throw new Error(`${mode}: ${r.non2xx} non-2xx and ${r.errors} socket errors`);
      rps[mode].push(r.rps);
    }
  }
  for (const [mode, v] of Object.entries(rps)) line(`runs ${mode}: ${v.map((x) => x.toFixed(0)).join(' ')}`);
  const s = Object.fromEntries(Object.entries(rps).map(([k, v]) => [k, spread(v)]));
  line(`anonymous (W1)           ${fmt(s.anonymous)} req/s`);
  rows.push({ name: 'anonymous (W1) req/s', value: fmt(s.anonymous) });
  if (s.token) {
    const r = ratio(s.token.median, s.anonymous.median);
    line(`read token over Basic    ${fmt(s.token)} req/s  token/anonymous ${fmtRatio(r)} (target >= 0.90x: ${verdict(r >= 0.9)})`);
    rows.push({ name: 'read token req/s', value: fmt(s.token) }, { name: 'read token / anonymous', value: fmtRatio(r), target: '>= 0.90x', verdict: verdict(r >= 0.9) });
  }
  const p = ratio(s.password.median, s.anonymous.median);
  line(`admin password (fallback, not W2 proper) ${fmt(s.password)} req/s  password/anonymous ${fmtRatio(p)}`);
  rows.push({ name: 'admin password over Basic req/s (fallback, not a read token)', value: fmt(s.password) }, { name: 'password / anonymous', value: fmtRatio(p) });
} finally {
  await trove.stop();
  clean();
}
summary({ id: 'W2', title: 'small GET with a read token', rows, notes });
