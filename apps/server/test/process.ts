import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));

export interface Running {
  child: ChildProcess;
  url: string;
  port: number;
  dataDir: string;
  stdout: () => string;
  stderr: () => string;
  stop(): Promise<number | null>;
}

/** Starts the built server as a real process (the way `pnpm start` does) on a free port. */
export async function startProcess(env: Record<string, string> = {}, dataDir = mkdtempSync(join(tmpdir(), 'trove-srv-'))): Promise<Running> {
  let out = '';
  let err = '';
  const child = spawn(process.execPath, [MAIN], {
    env: { PATH: process.env.PATH!, TR_DATA_DIR: dataDir, TR_LISTEN: '127.0.0.1:0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start: ${out}\n${err}`)), 15_000);
    const check = () => {
      const m = /"port":(\d+)[^\n]*"msg":"trove listening"/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    };
    child.stdout!.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}: ${err}`));
    });
  });
  return {
    child,
    port,
    url: `http://127.0.0.1:${port}`,
    dataDir,
    stdout: () => out,
    stderr: () => err,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve(child.exitCode);
        child.once('exit', (code) => resolve(code));
        child.kill('SIGTERM');
      }),
  };
}

/** Runs the server expecting it to refuse to start; resolves with its exit code and output. */
export function runToExit(env: Record<string, string>, dataDir = mkdtempSync(join(tmpdir(), 'trove-srv-'))): Promise<{ code: number | null; stderr: string; stdout: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MAIN], { env: { PATH: process.env.PATH!, TR_DATA_DIR: dataDir, TR_LISTEN: '127.0.0.1:0', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const t = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.on('exit', (code) => {
      clearTimeout(t);
      resolve({ code, stderr, stdout });
    });
  });
}
