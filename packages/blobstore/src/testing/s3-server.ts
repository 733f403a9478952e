import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export interface TestS3Server {
  endpoint: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  bucket: string;
  /** s3rver's directory: `<dir>/<bucket>/<key>._S3rver_object` per object. */
  dir: string;
  /** The server's process id (a benchmark pins or measures it). */
  pid: number;
  close(): Promise<void>;
}

/** Same path from src/testing and dist/testing: the package root's scripts/. */
const SCRIPT = fileURLToPath(new URL('../../scripts/s3rver.mjs', import.meta.url));

/**
 * A real S3-compatible server (s3rver) on 127.0.0.1 and a free port, in a child process of its
 * own (it would otherwise share the event loop, and the CPU time, of the server under test),
 * with one empty bucket. Clients need path-style addressing and credentials S3RVER/S3RVER, or
 * `accessKey` as both; s3rver checks the access key but not the signature. `cpu` pins it with taskset (benchmarks).
 */
export async function startS3Server(opts: { bucket?: string; dir?: string; cpu?: string; accessKey?: string } = {}): Promise<TestS3Server> {
  const bucket = opts.bucket ?? 'artifacts';
  const dir = opts.dir ?? mkdtempSync(join(tmpdir(), 'trove-s3rver-'));
  const key = opts.accessKey ?? 'S3RVER';
  const args = [SCRIPT, '--dir', dir, '--bucket', bucket, '--key', key];
  const child = opts.cpu ? spawn('taskset', ['-c', opts.cpu, process.execPath, ...args], { stdio: ['ignore', 'pipe', 'inherit'] }) : spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const endpoint = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', (l) => {
      try {
        resolve((JSON.parse(l) as { endpoint: string }).endpoint);
      } catch {
        reject(new Error(`s3rver said: ${l}`));
      }
    });
    void exited.then((code) => reject(new Error(`s3rver exited with ${code} before it was ready`)));
  });
  return {
    endpoint,
    region: 'us-east-1',
    accessKeyId: key,
    secretAccessKey: key,
    bucket,
    dir,
    pid: child.pid!,
    async close() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
      if (!opts.dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}
