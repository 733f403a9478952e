#!/usr/bin/env node
/**
 * W7 (BENCH.md): time from spawning the built server to its first healthy /healthz
 * (polled every 5 ms), and its idle RSS 3 s later. A first start on an empty data dir
 * (migrations, master key, bootstrap admin) and a restart on the same dir, several runs.
 * Targets: < 1 s; idle RSS < 100 MB.
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
} finally {
  clean();
}
summary({ id: 'W7', title: 'start-up and idle memory', rows });
