import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
/** The client recipes vendored in scripts/clients, so the suite needs nothing beside the clone. */
export const CLIENTS = resolve(repoRoot, 'scripts/clients');

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout and stderr together, for matching Maven's and Gradle's messages. */
  output: string;
}

/** Runs a client script with a hard timeout; never throws on a non-zero exit. */
export function run(script: string, args: string[], env: Record<string, string> = {}, timeoutMs = 150_000): Promise<RunResult> {
  return new Promise((done) => {
    execFile('bash', [join(CLIENTS, script), ...args], { env: { ...process.env, ...env }, timeout: timeoutMs, maxBuffer: 32 * 1024 * 1024, killSignal: 'SIGKILL' }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0;
      done({ code, stdout, stderr, output: stdout + stderr });
    });
  });
}

/** Runs gradle on a build directory (for resolution builds the scripts do not cover). */
export function gradle(dir: string, args: string[], timeoutMs = 150_000, env: Record<string, string> = {}): Promise<RunResult> {
  return new Promise((done) => {
    execFile('gradle', ['--no-daemon', '--console=plain', '-q', ...args], { cwd: dir, env: { ...process.env, ...env, GRADLE_USER_HOME: join(dir, '.gradle-home') }, timeout: timeoutMs, maxBuffer: 32 * 1024 * 1024, killSignal: 'SIGKILL' }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0;
      done({ code, stdout, stderr, output: stdout + stderr });
    });
  });
}

const made: string[] = [];

/** A temp dir that `removeTempDirs()` deletes (call it in afterAll). */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

export function removeTempDirs(): void {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
}

export function writeFile(dir: string, name: string, content: string | Buffer): string {
  const p = join(dir, name);
  writeFileSync(p, content);
  return p;
}

/** True once gradle-enable-maven-publish.sh has patched Debian's Gradle (install-test-deps does it). */
export const mavenPublishEnabled = () => existsSync('/usr/share/java/gradle-maven-4.4.1.jar.distrib');
