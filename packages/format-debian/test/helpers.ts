import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as openpgp from 'openpgp';
import type { Credential, CoreContext } from '@trove/core';
import { startTestServer, type TestServer } from '@trove/core/testing/server';
import { basic, rememberingResolver, staticResolver } from '@trove/core/testing/resolver';
import { debianFormat } from '../src/index.js';

export const work = mkdtempSync(join(tmpdir(), 'trove-deb-test-'));

export interface DebSpec {
  name: string;
  version: string;
  arch?: string;
  compression?: 'xz' | 'gzip' | 'zstd' | 'none';
  depends?: string;
  source?: string;
  /** Changes the payload, so the same identity gets different bytes. */
  payload?: string;
  extraControl?: string;
}

let counter = 0;
/** A real .deb built by dpkg-deb (deterministic for equal specs). */
export function makeDeb(spec: DebSpec): string {
  const arch = spec.arch ?? 'amd64';
  const dir = join(work, `pkg-${++counter}`);
  mkdirSync(join(dir, 'DEBIAN'), { recursive: true });
  mkdirSync(join(dir, 'usr/share', spec.name), { recursive: true });
  writeFileSync(join(dir, 'usr/share', spec.name, 'hello.txt'), spec.payload ?? `hello from ${spec.name} ${spec.version}\n`);
  const control = [
    `Package: ${spec.name}`,
    ...(spec.source ? [`Source: ${spec.source}`] : []),
    `Version: ${spec.version}`,
    `Architecture: ${arch}`,
    'Maintainer: Test Suite <test@example.test>',
    ...(spec.depends ? [`Depends: ${spec.depends}`] : []),
    'Section: misc',
    'Priority: optional',
    ...(spec.extraControl ? [spec.extraControl] : []),
    `Description: test package ${spec.name}`,
    ' Built by the format-debian tests.',
  ].join('\n');
  writeFileSync(join(dir, 'DEBIAN/control'), control + '\n');
  execFileSync('find', [dir, '-exec', 'touch', '-h', '-d', '@1700000000', '{}', '+']);
  const out = join(work, `${spec.name}_${spec.version.replace(/:/g, '%3a')}_${arch}_${counter}.deb`);
  execFileSync('dpkg-deb', ['--root-owner-group', `-Z${spec.compression ?? 'xz'}`, '--build', dir, out], { stdio: 'pipe', env: { ...process.env, SOURCE_DATE_EPOCH: '1700000000' } });
  return out;
}

let keyFile: string | undefined;
/** One pre-generated key for servers that do not test generation (RSA 4096 takes ~2 s to generate). */
export async function fixtureKeyFile(): Promise<string> {
  if (keyFile) return keyFile;
  const { privateKey } = await openpgp.generateKey({ type: 'ecc', curve: 'ed25519Legacy', userIDs: [{ name: 'Fixture key' }], format: 'armored' } as any);
  keyFile = join(work, 'fixture-key.asc');
  writeFileSync(keyFile, privateKey);
  return keyFile;
}

export interface DebServerOptions {
  env?: Record<string, string>;
  /** Use the fixture key file (default true); false makes the server generate its key. */
  fixtureKey?: boolean;
  dataDir?: string;
}

/**
 * Repositories: `apt` (anonymous read), `private` (alice reads), `other`.
 * Passwords: `pub-apt`, `pub-private`, `pub-other` (publish sessions), `alice`, `bob` (no permission), `admin`.
 * Resolutions are remembered as the auth module remembers them (repeated GETs take the lean read path).
 */
export async function debServer(opts: DebServerOptions = {}): Promise<TestServer> {
  const env: Record<string, string> = { TR_DEB_DEBOUNCE: '50ms', ...(opts.env ?? {}) };
  if (opts.fixtureKey !== false && !('TR_GPG_KEY_FILE' in env)) env.TR_GPG_KEY_FILE = await fixtureKeyFile();
  return startTestServer({
    modules: [debianFormat],
    env,
    ...(opts.dataDir ? { dataDir: opts.dataDir } : {}),
    setup: async (ctx: CoreContext) => {
      const alice = ctx.users.byName('alice') ?? ctx.users.create({ username: 'alice' });
      const bob = ctx.users.byName('bob') ?? ctx.users.create({ username: 'bob' });
      const admin = ctx.users.byName('root') ?? ctx.users.create({ username: 'root', isAdmin: true });
      if (!ctx.repos.byName('apt')) {
        await ctx.repos.create({ name: 'apt', format: 'debian', anonymous_read: true });
        const priv = await ctx.repos.create({ name: 'private', format: 'debian' });
        await ctx.repos.create({ name: 'other', format: 'debian', anonymous_read: true });
        ctx.permissions.set(priv, 'alice', 'read');
      }
      const publish = (repo: string): Credential => ({ type: 'publish', grant: { sessionId: 's-' + repo, repo, proof: 'oidc', user: null, actor: 'ci:acme/debs' } });
      const resolver = staticResolver({
        'pub-apt': publish('apt'),
        'pub-private': publish('private'),
        'pub-other': publish('other'),
        alice: { type: 'user', via: 'password', user: alice },
        bob: { type: 'user', via: 'password', user: bob },
        admin: { type: 'user', via: 'session', user: admin },
      });
      return { credentials: { resolver: rememberingResolver(ctx.generations, resolver) } };
    },
  });
}

export async function upload(s: TestServer, repo: string, dist: string, component: string, body: Buffer | string, password = `pub-${repo}`, method: 'PUT' | 'POST' = 'PUT') {
  const data = typeof body === 'string' ? (await import('node:fs')).readFileSync(body) : body;
  return fetch(`${s.url}/debian/${repo}/upload/${dist}/${component}`, { method, body: data, headers: { Authorization: basic(password) } });
}

export const get = (s: TestServer, path: string, password?: string, headers: Record<string, string> = {}) =>
  fetch(`${s.url}/${path}`, { headers: { ...(password ? { Authorization: basic(password) } : {}), ...headers } });

/** Waits until the repository's indexes are current (`pending: 0`). */
export async function settled(s: TestServer, repo: string, timeoutMs = 20_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const r = await fetch(`${s.url}/api/repos/${repo}/status`, { headers: { Authorization: basic('admin') } });
    const body = await r.json();
    if (body.pending === 0) return;
    if (Date.now() > until) throw new Error(`indexes of ${repo} still pending: ${JSON.stringify(body)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export { basic };
