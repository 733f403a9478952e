#!/usr/bin/env node
/**
 * Where a small GET's time goes (issue 19): starts the built server under `node --cpu-prof`
 * (pinned to core 0), loads it with wrk (core 1) for one read-path workload, stops it, and
 * prints the top self-time functions and the self time grouped by where the code lives.
 * Not a bench script (run.mjs ignores this folder); figures go to docs/performance.md.
 *
 *   node bench/tools/profile-read-path.mjs w1            # anonymous GET, public repo
 *   node bench/tools/profile-read-path.mjs token         # read token over Basic, private repo
 *   node bench/tools/profile-read-path.mjs password      # the admin password over Basic (after the first check)
 *   node bench/tools/profile-read-path.mjs publish       # a publish session token over Basic
 * BENCH_SECONDS (default 10), BENCH_PROFILE_DIR (default a temp dir, kept) and BENCH_TROVE_MAIN apply.
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SMALL_FILES, publishSmallFiles } from '../lib/small-get.mjs';
import { tempDir } from '../lib/files.mjs';
import { get } from '../lib/net.mjs';
import { loadAverage } from '../lib/proc.mjs';
import { ADMIN, adminAuth, api, basicAuth, ensureBuilt, startTrove } from '../lib/trove.mjs';
import { wrk } from '../lib/wrk.mjs';

const mode = process.argv[2] ?? 'w1';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const profileDir = process.env.BENCH_PROFILE_DIR ?? mkdtempSync(join(tmpdir(), `trove-profile-${mode}-`));
const FILE = SMALL_FILES[0];

await ensureBuilt();
const { dir, clean } = tempDir('profile');
const trove = await startTrove({ nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] });
let result;
const window = {};
try {
  await publishSmallFiles(trove, dir, 'public', { anonymousRead: true });
  const publishToken = await publishSmallFiles(trove, dir, 'private', { anonymousRead: false });
  let url = `${trove.url}/raw/private/${FILE.name}`;
  let headers = {};
  if (mode === 'w1') url = `${trove.url}/raw/public/${FILE.name}`;
  else if (mode === 'token') {
    const t = await api(trove.url, 'POST', '/api/tokens', { auth: adminAuth(), body: { name: 'profile', expires_in_days: 1 } });
    headers = { Authorization: basicAuth('reader', t.body.token) };
  } else if (mode === 'password') headers = { Authorization: basicAuth(ADMIN.user, ADMIN.password) };
  else if (mode === 'publish') headers = { Authorization: basicAuth('ci', publishToken) };
  else throw new Error(`unknown mode ${mode}: w1, token, password or publish`);
  const first = await get(url, { headers });
  if (first.status !== 200) throw new Error(`${mode}: ${first.status} ${first.body}`);
  await wrk(url, { seconds: 2, headers });
  console.log(`load average ${loadAverage()}`);
  window.start = performance.now();
  result = await wrk(url, { seconds: SECONDS, headers });
  window.end = performance.now();
  console.log(`${mode}: ${result.rps.toFixed(0)} req/s under the profiler (${result.requests} requests)`);
} finally {
  await trove.stop();
  window.stopped = performance.now();
  clean();
}

const file = readdirSync(profileDir).filter((f) => f.endsWith('.cpuprofile')).sort().pop();
const profile = JSON.parse(readFileSync(join(profileDir, file), 'utf8'));
console.log(`profile: ${join(profileDir, file)}`);

// Self time per node over the measured wrk run only (not start-up, set-up or warm-up): samples are
// node ids, timeDeltas the microseconds before each; the profile ends when the process exits,
// about when stop() returned, so the run is [end - (stopped - start), end - (stopped - end)].
const from = profile.endTime - (window.stopped - window.start) * 1000;
const to = profile.endTime - (window.stopped - window.end) * 1000;
const self = new Map();
let t = profile.startTime;
profile.samples.forEach((id, i) => {
  t += profile.timeDeltas[i] ?? 0;
  if (t < from || t > to) return;
  self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
});
const idleIds = new Set(profile.nodes.filter((n) => n.callFrame.functionName === '(idle)').map((n) => n.id));
const sampled = [...self.values()].reduce((a, b) => a + b, 0);
const total = [...self].filter(([id]) => !idleIds.has(id)).reduce((a, [, us]) => a + us, 0);
const byFunction = new Map();
const byGroup = new Map();
for (const node of profile.nodes) {
  const us = self.get(node.id) ?? 0;
  if (!us || idleIds.has(node.id)) continue;
  const { functionName, url, lineNumber } = node.callFrame;
  const where = url.replace(/^file:\/\//, '').replace(/.*node_modules\/\.pnpm\/[^/]+\/node_modules\//, '').replace(/.*\/(packages|apps)\//, '$1/');
  const key = `${functionName || '(anonymous)'} ${where ? `${where}:${lineNumber + 1}` : ''}`;
  byFunction.set(key, (byFunction.get(key) ?? 0) + us);
  const group = groupOf(functionName, url);
  byGroup.set(group, (byGroup.get(group) ?? 0) + us);
}
const pct = (us) => `${((100 * us) / total).toFixed(1).padStart(5)}%`;
console.log(`\nself time by group, % of busy time (${(sampled / 1e6).toFixed(1)} s sampled, ${(100 - (100 * total) / sampled).toFixed(0)}% idle; busy ${(total / result.requests).toFixed(1)} us per request):`);
for (const [g, us] of [...byGroup].sort((a, b) => b[1] - a[1])) console.log(`  ${pct(us)}  ${g}`);
console.log('\ntop 30 functions by self time:');
for (const [f, us] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log(`  ${pct(us)}  ${f}`);

function groupOf(name, url) {
  if (name === '(garbage collector)') return 'garbage collector';
  if (name === '(program)') return 'V8/native outside JS ((program): parser, syscalls, libuv)';
  if (url.includes('@hono/node-server')) return '@hono/node-server (Request/Response adapter)';
  if (url.includes('/hono/')) return 'hono (router, context, middleware)';
  if (url.includes('drizzle-orm')) return 'drizzle-orm';
  if (url.includes('better-sqlite3')) return 'better-sqlite3 (JS side)';
  if (url.includes('pino')) return 'pino';
  const m = /\/(packages|apps)\/([^/]+)\//.exec(url);
  if (m) return `trove ${m[2]}`;
  if (url.startsWith('node:') || url === '' ) return name && !url ? `native: ${['writev', 'writeUtf8String', 'writeBuffer', 'hash', 'digest'].includes(name) ? name : 'other builtins'}` : `node ${url.replace(/^node:/, '').split('/')[0] || 'builtins'}`;
  return url.split('/').slice(-2).join('/');
}
