#!/usr/bin/env node
/**
 * Storage move throughput (issue 14): N files uploaded to Trove on fs, then moved to S3 (s3rver,
 * in its own process) by `PATCH /api/settings`, timed from the 202 to `state: done` (the switch;
 * emptying the old store is after). Reference in the same run: a plain copy of the same files to
 * the same S3 server with the same SDK and the same parallelism (8), read from disk, one
 * PutObject each, no verification (the move also reads every object back to check its sha256).
 * Server on core 0; s3rver and the reference on core 1. Reports files/s and MB/s and the ratio.
 */
import { createRequire } from 'node:module';
import { randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './lib/files.mjs';
import { publishSession } from './lib/publish.mjs';
import { header, line, summary } from './lib/report.mjs';
import { fmt, fmtRatio, ratio, spread } from './lib/stats.mjs';
import { ROOT, adminAuth, api, basicAuth, createRawRepo, ensureBuilt, startTrove } from './lib/trove.mjs';

const FILES = Number(process.env.BENCH_MOVE_FILES ?? 2000);
const SIZE = Number(process.env.BENCH_MOVE_BYTES ?? 16 * 1024);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const PARALLEL = 8;

const requireSdk = createRequire(join(ROOT, 'packages/blobstore/package.json'));
const { S3Client, PutObjectCommand } = requireSdk('@aws-sdk/client-s3');

async function startS3(dir) {
  const child = spawn('taskset', ['-c', '1', process.execPath, join(ROOT, 'packages/blobstore/scripts/s3rver.mjs'), '--dir', dir, '--bucket', 'bench'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const first = await new Promise((resolve) => createInterface({ input: child.stdout }).once('line', resolve));
  const { endpoint } = JSON.parse(first);
  return { endpoint, stop: () => new Promise((r) => (child.exitCode !== null ? r() : (child.once('exit', r), child.kill('SIGTERM')))) };
}

async function eachLimited(items, limit, fn) {
  let next = 0;
  await Promise.all(Array.from({ length: limit }, async () => {
    while (next < items.length) await fn(items[next++]);
  }));
}

header('MOVE', `storage move fs -> S3 of ${FILES} files of ${SIZE} B vs a plain SDK copy (${RUNS} runs, median [min-max])`);
await ensureBuilt();
const { dir } = tempDir('move');
const srcDir = join(dir, 'files');
mkdirSync(srcDir);
const names = Array.from({ length: FILES }, (_, i) => `f${i}.bin`);
for (const n of names) writeFileSync(join(srcDir, n), randomBytes(SIZE));
const bytes = FILES * SIZE;
const s3 = await startS3(join(dir, 's3'));
const client = new S3Client({ endpoint: s3.endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' }, requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED' });
const moveSecs = [];
const copySecs = [];
try {
  for (let run = 0; run < RUNS; run++) {
    // Reference: the same files, the same SDK, the same parallelism.
    let t = performance.now();
    await eachLimited(names, PARALLEL, (n) => client.send(new PutObjectCommand({ Bucket: 'bench', Key: `plain${run}/${n}`, Body: readFileSync(join(srcDir, n)) })));
    copySecs.push((performance.now() - t) / 1000);

    const trove = await startTrove();
    try {
      await createRawRepo(trove.url, 'files', { anonymousRead: true });
      const token = await publishSession(trove.url, 'files');
      await eachLimited(names, PARALLEL, async (n) => {
        const r = await fetch(`${trove.url}/raw/files/${n}`, { method: 'PUT', headers: { Authorization: basicAuth('ci', token) }, body: readFileSync(join(srcDir, n)) });
        if (r.status !== 201) throw new Error(`upload ${n}: ${r.status}`);
      });
      t = performance.now();
      const start = await api(trove.url, 'PATCH', '/api/settings', {
        asAdmin: true,
        body: { storage: 's3', 's3.endpoint': s3.endpoint, 's3.bucket': 'bench', 's3.region': 'us-east-1', 's3.access_key_id': 'S3RVER', 's3.secret_access_key': 'S3RVER', 's3.path_style': true, 's3.prefix': `move${run}` },
      });
      if (start.status !== 202) throw new Error(`PATCH: ${start.status} ${JSON.stringify(start.body)}`);
      for (;;) {
        const m = await api(trove.url, 'GET', `/api/storage/moves/${start.body.move.id}`, { auth: adminAuth() });
        if (m.body.state === 'done') break;
        if (m.body.state !== 'copying') throw new Error(`move ended ${m.body.state}: ${m.body.error}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      moveSecs.push((performance.now() - t) / 1000);
    } finally {
      await trove.stop();
    }
    line(`run ${run + 1}: move ${moveSecs.at(-1).toFixed(2)} s, plain copy ${copySecs.at(-1).toFixed(2)} s`);
  }
} finally {
  client.destroy();
  await s3.stop();
}
const fps = (xs) => spread(xs.map((s) => FILES / s));
const mbps = (xs) => spread(xs.map((s) => bytes / 1e6 / s));
const r = ratio(fps(moveSecs).median, fps(copySecs).median);
line(`move       ${fmt(fps(moveSecs))} files/s, ${fmt(mbps(moveSecs), 1)} MB/s`);
line(`plain copy ${fmt(fps(copySecs))} files/s, ${fmt(mbps(copySecs), 1)} MB/s`);
line(`move/plain ${fmtRatio(r)} (the move also reads each object back from S3 to verify its sha256)`);
summary({
  id: 'MOVE',
  title: `storage move fs -> S3, ${FILES} x ${SIZE} B`,
  rows: [
    { name: 'move files/s | MB/s', value: `${fmt(fps(moveSecs))} | ${fmt(mbps(moveSecs), 1)}` },
    { name: 'plain SDK copy files/s | MB/s', value: `${fmt(fps(copySecs))} | ${fmt(mbps(copySecs), 1)}` },
    { name: 'move/plain', value: fmtRatio(r) },
  ],
});
