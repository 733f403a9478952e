import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { work } from './helpers.js';

const run = promisify(execFile);

export interface AptResult {
  code: number;
  stderr: string;
  /** The downloaded .deb, when the download succeeded. */
  deb?: string;
  /** Paths apt requested over HTTP (from Debug::Acquire::http), in order. */
  requests: string[];
}

/**
 * `apt-get update` and `apt-get download` in a private apt root, like scripts/clients/apt-client.sh,
 * but with extra `-o` options (e.g. which index compression apt fetches) and apt's HTTP debug log,
 * so a test can see which index files apt fetched.
 */
export async function aptDownload(base: string, repo: string, dist: string, pkg: string, options: string[]): Promise<AptResult> {
  const t = mkdtempSync(join(work, 'apt-'));
  for (const d of ['apt.conf.d', 'sources.list.d', 'preferences.d', 'trusted.gpg.d', 'auth.conf.d', 'log', 'dl', 'state/lists/partial', 'cache/archives/partial', 'root/var/lib/dpkg']) {
    mkdirSync(join(t, d), { recursive: true });
  }
  writeFileSync(join(t, 'root/var/lib/dpkg/status'), '');
  writeFileSync(join(t, 'repo.asc'), await (await fetch(`${base}/keys/debian.asc`)).text());
  writeFileSync(join(t, 'sources.list'), `deb [signed-by=${t}/repo.asc] ${base}/debian/${repo} ${dist} main\n`);
  writeFileSync(
    join(t, 'apt.conf'),
    [
      'Dir::Etc::main "/dev/null";',
      `Dir::Etc::Parts "${t}/apt.conf.d";`,
      `Dir::Etc::SourceList "${t}/sources.list";`,
      `Dir::Etc::SourceParts "${t}/sources.list.d";`,
      'Dir::Etc::Preferences "/dev/null";',
      `Dir::Etc::PreferencesParts "${t}/preferences.d";`,
      'Dir::Etc::Trusted "/dev/null";',
      `Dir::Etc::TrustedParts "${t}/trusted.gpg.d";`,
      `Dir::Etc::netrcparts "${t}/auth.conf.d";`,
      `Dir::State "${t}/state";`,
      `Dir::State::status "${t}/root/var/lib/dpkg/status";`,
      `Dir::Cache "${t}/cache";`,
      `Dir::Log "${t}/log";`,
      'APT::Sandbox::User "root";',
      'APT::Architecture "amd64";',
      'APT::Architectures { "amd64"; };',
      'Acquire::http::Proxy "DIRECT";',
      'Acquire::Languages "none";',
      'Acquire::Retries "0";',
      'Debug::Acquire::http "true";',
    ].join('\n') + '\n',
  );
  const env = { ...process.env, APT_CONFIG: join(t, 'apt.conf') };
  const opts = options.flatMap((o) => ['-o', o]);
  let stderr = '';
  const requests = () => [...stderr.matchAll(/^GET (\S+) HTTP\/1\.1$/gm)].map((m) => m[1]!);
  try {
    const up = await run('apt-get', ['-q', 'update', '--error-on=any', ...opts], { env, timeout: 60_000 });
    stderr += up.stdout + up.stderr;
    const dl = await run('apt-get', ['-q', 'download', ...opts, pkg], { env, cwd: join(t, 'dl'), timeout: 60_000 });
    stderr += dl.stdout + dl.stderr;
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    stderr += (e.stdout ?? '') + (e.stderr ?? '');
    return { code: typeof e.code === 'number' ? e.code : 1, stderr, requests: requests() };
  }
  const deb = readdirSync(join(t, 'dl')).find((f) => f.endsWith('.deb'));
  return { code: 0, stderr, requests: requests(), ...(deb ? { deb: join(t, 'dl', deb) } : {}) };
}
