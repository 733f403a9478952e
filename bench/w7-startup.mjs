#!/usr/bin/env node
/**
 * W7 (BENCH.md): time from spawning the built server to its first healthy /healthz
 * (polled every 5 ms), and its idle RSS 3 s later. A first start on an empty data dir
 * (migrations, master key, bootstrap admin) and a restart on the same dir, several runs.
 * Targets: < 1 s; idle RSS < 100 MB.
 * A first start generates the Debian signing key in the background (RSA 4096, seconds): a third
 * start per run, on another empty dir, asks for /keys/debian.asc as soon as it is healthy and
 * reports when the key was served (not a target; the idle figures above never request it).
 */
import { rmSync } from 'node:fs';
import { tempDir } from './lib/files.mjs';
import { sleep } from './lib/proc.mjs';
import { header, line, summary, verdict } from './lib/report.mjs';
import { fmt, mib, spread } from './lib/stats.mjs';
import { ensureBuilt, startTrove } from './lib/trove.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const IDLE_WAIT_MS = 3000;

header('W7', `start to first healthy /healthz and idle RSS (${RUNS} runs each, median [min-max])`);
await ensureBuilt();
const { dir, clean } = tempDir('w7');
const rows = [];
try {
  const result = { first: { ms: [], idle: [], peak: [] }, restart: { ms: [], idle: [], peak: [] } };
  const keyMs = [];
  for (let i = 0; i < RUNS; i++) {
    const dataDir = `${dir}/data-${i}`;
    for (const kind of ['first', 'restart']) {
      const t = await startTrove({ dataDir });
      await sleep(IDLE_WAIT_MS);
      const m = t.memory();
      await t.stop();
      result[kind].ms.push(t.healthyMs);
      result[kind].idle.push(m.rss / 1e6);
      result[kind].peak.push(mib(m.hwm));
    }
    rmSync(dataDir, { recursive: true, force: true });

    const t = await startTrove();
    const asked = performance.now();
    const key = await fetch(`${t.url}/keys/debian.asc`);
    const body = await key.text();
    keyMs.push(t.healthyMs + performance.now() - asked);
    await t.stop();
    if (key.status !== 200 || !body.includes('BEGIN PGP PUBLIC KEY BLOCK')) throw new Error(`/keys/debian.asc answered ${key.status}: ${body.slice(0, 200)}`);
  }
  for (const [kind, r] of Object.entries(result)) {
    const ms = spread(r.ms);
    const idle = spread(r.idle);
    const label = kind === 'first' ? 'first start (empty data dir)' : 'restart (existing data dir)';
    line(`${label.padEnd(30)} healthy after ${fmt(ms)} ms (target < 1000: ${verdict(ms.median < 1000)}); idle RSS ${fmt(idle)} MB (target < 100: ${verdict(idle.median < 100)}); start-up peak ${fmt(spread(r.peak))} MiB`);
    rows.push(
      { name: `${label}: ms to healthy`, value: fmt(ms), target: '< 1000', verdict: verdict(ms.median < 1000) },
      { name: `${label}: idle RSS MB`, value: fmt(idle), target: '< 100', verdict: verdict(idle.median < 100) },
      { name: `${label}: start-up peak RSS (VmHWM) MiB`, value: fmt(spread(r.peak)) },
    );
  }
  const key = spread(keyMs);
  line(`${'first start, key requested'.padEnd(30)} key served after ${fmt(key)} ms (generated in the background)`);
  rows.push({ name: 'first start: ms until /keys/debian.asc served', value: fmt(key) });
} finally {
  clean();
}
summary({ id: 'W7', title: 'start-up and idle memory', rows });
