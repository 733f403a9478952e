import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { TestServer } from '@trove/core/testing/server';
import { snapshotMetadata } from './metadata-fixtures.js';
import { client, mavenServer } from './server.js';

/**
 * Maven GETs of stored files, maven-metadata.xml, SNAPSHOT names and checksum side files are
 * answered from memory once seen (docs/decisions.md, "Read-path caches"). Each test first proves
 * the answer now comes from memory (no asset lookup runs), changes one thing, and expects the very
 * next GET to see the change.
 */
let s: TestServer;
afterEach(() => s?.close());

const sha1 = (b: string) => createHash('sha1').update(b).digest('hex');
const A = 'org/acme/widget';

async function setup() {
  s = await mavenServer();
  const c = client(s);
  /** GETs `path` until an answer comes without an asset lookup (from memory), and returns that answer. */
  const warm = async (path: string, password?: string): Promise<Response> => {
    expect((await c.get(path, password)).status, path).toBe(200);
    const lookups = vi.spyOn(s.ctx.assets, 'get');
    try {
      const r = await c.get(path, password);
      expect(r.status, path).toBe(200);
      expect(lookups, `${path} answered from memory`).not.toHaveBeenCalled();
      return r;
    } finally {
      lookups.mockRestore();
    }
  };
  return { ...c, warm };
}

const metadata = (versions: string[]) => `<?xml version="1.0" encoding="UTF-8"?>
<metadata>
  <groupId>org.acme</groupId>
  <artifactId>widget</artifactId>
  <versioning>
    <latest>${versions[versions.length - 1]}</latest>
    <release>${versions[versions.length - 1]}</release>
    <versions>${versions.map((v) => `<version>${v}</version>`).join('')}</versions>
    <lastUpdated>20250101120000</lastUpdated>
  </versioning>
</metadata>
`;


describe('maven read path from memory: a change applies on the very next GET', () => {
  it('a replaced maven-metadata.xml, and its .sha1 side file', async () => {
    const { put, get, warm } = await setup();
    await put(`releases/${A}/1.0/widget-1.0.jar`, 'one');
    const first = metadata(['1.0']);
    expect((await put(`releases/${A}/maven-metadata.xml`, first)).status).toBe(201);
    expect(await (await warm(`releases/${A}/maven-metadata.xml`)).text()).toBe(first);
    expect(await (await warm(`releases/${A}/maven-metadata.xml.sha1`)).text()).toBe(sha1(first));

    await put(`releases/${A}/1.1/widget-1.1.jar`, 'two');
    const next = metadata(['1.0', '1.1']);
    expect((await put(`releases/${A}/maven-metadata.xml`, next)).status).toBe(200);
    expect(await (await get(`releases/${A}/maven-metadata.xml`)).text()).toBe(next);
    expect(await (await get(`releases/${A}/maven-metadata.xml.sha1`)).text()).toBe(sha1(next));
  });

  it('a deleted file and its checksum answer 404', async () => {
    const { get, put, warm } = await setup();
    const jar = `releases/${A}/1.0/widget-1.0.jar`;
    await put(jar, 'bytes');
    await warm(jar);
    await warm(`${jar}.sha1`);
    expect(s.ctx.assets.delete(s.ctx.repos.byName('releases')!, `${A}/1.0/widget-1.0.jar`)).toBe(true);
    expect((await get(jar)).status).toBe(404);
    expect((await get(`${jar}.sha1`)).status).toBe(404);
  });

  it('a SNAPSHOT name, and its .sha1, after a newer build is deployed', async () => {
    const { put, get, warm } = await setup();
    const dir = `releases/${A}/3.0-SNAPSHOT`;
    await put(`${dir}/widget-3.0-20250101.120000-1.jar`, 'build one');
    await put(`${dir}/maven-metadata.xml`, snapshotMetadata('20250101.120000', 1));
    expect(await (await warm(`${dir}/widget-3.0-SNAPSHOT.jar`)).text()).toBe('build one');
    expect(await (await warm(`${dir}/widget-3.0-SNAPSHOT.jar.sha1`)).text()).toBe(sha1('build one'));

    await put(`${dir}/widget-3.0-20250102.120000-2.jar`, 'build two');
    await put(`${dir}/maven-metadata.xml`, snapshotMetadata('20250102.120000', 2));
    expect(await (await get(`${dir}/widget-3.0-SNAPSHOT.jar`)).text()).toBe('build two');
    expect(await (await get(`${dir}/widget-3.0-SNAPSHOT.jar.sha1`)).text()).toBe(sha1('build two'));
  });

  it('a private repository read with a password over Basic: a removed permission answers 403, and no one else is answered from memory', async () => {
    const { put, get, warm } = await setup();
    const jar = `private/${A}/1.0/widget-1.0.jar`;
    expect((await put(jar, 'secret', 'pub-private')).status).toBe(201);
    await warm(jar, 'alice');
    await warm(`${jar}.sha1`, 'alice');
    // In memory for alice only: anonymous callers are still challenged, bob still refused.
    expect((await get(jar)).status).toBe(401);
    expect((await get(jar, 'bob')).status).toBe(403);
    s.ctx.permissions.remove(s.ctx.repos.byName('private')!, 'alice');
    // Twice each: the first GET resolves the password again, which must not bring the old answer back.
    for (let i = 0; i < 2; i++) {
      expect((await get(jar, 'alice')).status).toBe(403);
      expect((await get(`${jar}.sha1`, 'alice')).status).toBe(403);
    }
  });

  it('an answer from memory carries the format routes\' security headers and the metadata\'s no-cache', async () => {
    const { put, warm } = await setup();
    await put(`releases/${A}/1.0/widget-1.0.pom`, '<project/>');
    await put(`releases/${A}/maven-metadata.xml`, metadata(['1.0']));
    for (const path of [`releases/${A}/maven-metadata.xml`, `releases/${A}/maven-metadata.xml.sha1`, `releases/${A}/1.0/widget-1.0.pom`]) {
      const r = await warm(path);
      expect(r.headers.get('content-security-policy'), path).toMatch(/^sandbox/);
      expect(r.headers.get('x-content-type-options'), path).toBe('nosniff');
      expect(r.headers.get('etag'), path).toBeTruthy();
    }
    expect((await warm(`releases/${A}/maven-metadata.xml`)).headers.get('cache-control')).toBe('no-cache');
    expect((await warm(`releases/${A}/maven-metadata.xml.sha1`)).headers.get('content-type')).toBe('text/plain; charset=utf-8');
  });
});
