#!/usr/bin/env node
/**
 * W1 and W3 (BENCH.md) served from S3 with `s3.redirect` off, against the same scripts on fs, in
 * one run: the w1/w3 scripts run twice each, once as they are and once with BENCH_TROVE_ENV
 * putting the blobs on s3rver (its own process, pinned to core 1 with the load generator). Their
 * own references (plain node, nginx) are in both runs, so each S3 figure has its fs twin beside it.
 * Knobs as for w1/w3 (BENCH_RUNS, BENCH_SECONDS, BENCH_BIG_BYTES, BENCH_SLOW_BYTES).
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { tempDir } from './lib/files.mjs';
import { header, line, summary } from './lib/report.mjs';
import { ROOT, ensureBuilt } from './lib/trove.mjs';

header('W1/W3-S3', 'W1 and W3 with blobs on S3 (s3.redirect off) vs on fs');
await ensureBuilt();
const { dir } = tempDir('s3w');
const s3 = spawn('taskset', ['-c', '1', process.execPath, join(ROOT, 'packages/blobstore/scripts/s3rver.mjs'), '--dir', dir, '--bucket', 'bench'], { stdio: ['ignore', 'pipe', 'inherit'] });
const { endpoint } = JSON.parse(await new Promise((r) => createInterface({ input: s3.stdout }).once('line', r)));
const s3Env = (prefix) =>
  [`TR_STORAGE=s3`, `TR_S3_ENDPOINT=${endpoint}`, 'TR_S3_BUCKET=bench', 'TR_S3_REGION=us-east-1', 'TR_S3_ACCESS_KEY_ID=S3RVER', 'TR_S3_SECRET_ACCESS_KEY=S3RVER', 'TR_S3_PATH_STYLE=true', 'TR_S3_REDIRECT=false', `TR_S3_PREFIX=${prefix}`].join(',');

function runScript(file, extraEnv) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(ROOT, 'bench', file)], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, BENCH_NO_BUILD: '1', ...extraEnv } });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('close', (code) => {
      const summaryLine = out.split('\n').find((l) => l.startsWith('BENCH-SUMMARY '));
      for (const l of out.split('\n')) if (l && !l.startsWith('BENCH-SUMMARY ')) line(l.trim());
      resolve({ code, summary: summaryLine ? JSON.parse(summaryLine.slice('BENCH-SUMMARY '.length)) : null });
    });
  });
}

const rows = [];
try {
  for (const file of ['w1-small-get.mjs', 'w3-download.mjs']) {
    for (const [label, env] of [['fs', {}], ['s3', { BENCH_TROVE_ENV: s3Env(file.slice(0, 2)) }]]) {
      line(`--- ${file} on ${label}`);
      const r = await runScript(file, env);
      if (r.code) throw new Error(`${file} on ${label} failed with exit code ${r.code}`);
      for (const row of r.summary?.rows ?? []) rows.push({ ...row, name: `${label}: ${row.name}` });
    }
  }
} finally {
  s3.kill('SIGTERM');
}
summary({ id: 'W1/W3-S3', title: 'W1 and W3 from S3 (redirect off) vs fs', rows });
