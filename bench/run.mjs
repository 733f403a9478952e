#!/usr/bin/env node
/**
 * Runs the bench scripts in sequence (never two at once: they share two cores) and
 * prints a summary. `pnpm bench` runs all of them; `pnpm bench w1 w3` or
 * `pnpm bench maven` runs those whose file name starts with an argument.
 * `--json <file>` also writes the summaries as JSON. Exit code 1 if any script failed.
 * Each script prints its figures, then one `BENCH-SUMMARY {json}` line (lib/report.mjs).
 */
import { spawn } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureBuilt } from './lib/trove.mjs';
import { loadAverage } from './lib/proc.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const jsonAt = args.indexOf('--json');
const jsonOut = jsonAt >= 0 ? args.splice(jsonAt, 2)[1] : undefined;

const all = readdirSync(HERE)
  .filter((f) => f.endsWith('.mjs') && f !== 'run.mjs')
  .sort();
const chosen = args.length ? all.filter((f) => args.some((a) => f.startsWith(a))) : all;
if (chosen.length === 0) {
  console.error(`no bench script matches ${args.join(', ')}; have: ${all.join(', ')}`);
  process.exit(2);
}

function runScript(file) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(process.execPath, [join(HERE, file)], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, BENCH_NO_BUILD: '1' } });
    let summary = null;
    let buffered = '';
    child.stdout.on('data', (d) => {
      buffered += d;
      let nl;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        const lineText = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        if (lineText.startsWith('BENCH-SUMMARY ')) summary = JSON.parse(lineText.slice('BENCH-SUMMARY '.length));
        else process.stdout.write(lineText + '\n');
      }
    });
    child.on('close', (code) => {
      if (buffered.startsWith('BENCH-SUMMARY ')) summary = JSON.parse(buffered.slice('BENCH-SUMMARY '.length));
      else if (buffered) process.stdout.write(buffered + '\n');
      resolve({ file, code, seconds: (Date.now() - started) / 1000, summary });
    });
  });
}

console.log(`bench: ${chosen.join(', ')} (load average ${loadAverage()}, ${new Date().toISOString()})`);
await ensureBuilt(); // once here; the scripts then skip the check (BENCH_NO_BUILD=1)
const results = [];
for (const file of chosen) results.push(await runScript(file));

console.log('\n==================== summary ====================');
for (const r of results) {
  const title = r.summary ? `${r.summary.id}: ${r.summary.title}` : r.file;
  console.log(`\n${title}  (${r.file}, ${r.seconds.toFixed(0)} s${r.code ? `, FAILED with exit code ${r.code}` : ''})`);
  for (const row of r.summary?.rows ?? []) {
    const target = row.target ? `  target ${row.target}${row.verdict ? `: ${row.verdict}` : ''}` : '';
    console.log(`  ${row.name}: ${row.value}${target}`);
  }
  for (const note of r.summary?.notes ?? []) console.log(`  note: ${note}`);
  if (!r.summary && !r.code) console.log('  (no BENCH-SUMMARY line printed)');
}
if (jsonOut) writeFileSync(jsonOut, JSON.stringify(results, null, 2));
process.exit(results.some((r) => r.code) ? 1 : 0);
