import { createHash, randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { TestServer } from '@trove/core/testing/server';
import { parseMetadata } from '../src/metadata.js';
import { snapshotMetadata } from './metadata-fixtures.js';
import { basic, client, mavenServer, rawRequest } from './server.js';

let s: TestServer;
afterEach(() => s?.close());

const hex = (alg: string, b: Buffer | string) => createHash(alg).update(b).digest('hex');
const A = 'org/acme/widget';

async function setup(env: Record<string, string> = {}) {
  s = await mavenServer(env);
  return client(s);
}

const artifactMetadata = (versions: string[], extra = '') => `<?xml version="1.0" encoding="UTF-8"?>
<metadata>
  <groupId>org.acme</groupId>
  <artifactId>widget</artifactId>
  <versioning>
    <latest>${versions[versions.length - 1]}</latest>
    <release>${versions.filter((v) => !v.endsWith('-SNAPSHOT')).pop() ?? ''}</release>
    <versions>${versions.map((v) => `<version>${v}</version>`).join('')}</versions>
    <lastUpdated>20250101120000</lastUpdated>${extra}
  </versioning>
</metadata>
`;

describe('maven format: uploads', () => {
  it('answers 201 for a new release file, 200 for an identical retry and serves the bytes back', async () => {
    const { put, get } = await setup();
    const jar = randomBytes(3000);
    const r = await put(`releases/${A}/1.0/widget-1.0.jar`, jar);
    expect(r.status).toBe(201);
    expect(await r.json()).toEqual({ path: `${A}/1.0/widget-1.0.jar`, size: 3000, sha256: hex('sha256', jar) });
    expect((await put(`releases/${A}/1.0/widget-1.0.jar`, jar)).status).toBe(200);
    const g = await get(`releases/${A}/1.0/widget-1.0.jar`);
    expect(g.status).toBe(200);
    expect(g.headers.get('content-type')).toBe('application/java-archive');
    expect(Buffer.from(await g.arrayBuffer()).equals(jar)).toBe(true);
  });

  it('rejects a changed release file with 409 and keeps the first bytes', async () => {
    const { put, get } = await setup();
    await put(`releases/${A}/1.0/widget-1.0.pom`, '<project>one</project>');
    const r = await put(`releases/${A}/1.0/widget-1.0.pom`, '<project>two</project>');
    expect(r.status).toBe(409);
    expect((await r.json()).error).toMatch(/release file and cannot change/);
    expect(await (await get(`releases/${A}/1.0/widget-1.0.pom`)).text()).toBe('<project>one</project>');
  });

  it('overwrites files under a -SNAPSHOT directory with 200', async () => {
    const { put, get } = await setup();
    expect((await put(`releases/${A}/1.1-SNAPSHOT/widget-1.1-SNAPSHOT.jar`, 'one')).status).toBe(201);
    expect((await put(`releases/${A}/1.1-SNAPSHOT/widget-1.1-SNAPSHOT.jar`, 'two')).status).toBe(200);
    expect(await (await get(`releases/${A}/1.1-SNAPSHOT/widget-1.1-SNAPSHOT.jar`)).text()).toBe('two');
  });

  it('accepts Gradle module files, classifiers, signatures and plugin marker artifacts as Maven paths', async () => {
    const { put, get } = await setup();
    for (const p of [
      `${A}/1.0/widget-1.0.module`,
      `${A}/1.0/widget-1.0-sources.jar`,
      `${A}/1.0/widget-1.0.jar.asc`,
      `${A}/1.0/widget-1.0.tar.gz`,
      'com/acme/hello/com.acme.hello.gradle.plugin/1.0/com.acme.hello.gradle.plugin-1.0.pom',
    ]) {
      expect((await put(`releases/${p}`, `bytes of ${p}`)).status, p).toBe(201);
      expect(await (await get(`releases/${p}`)).text()).toBe(`bytes of ${p}`);
    }
  });

  it('records the publish session actor as uploader', async () => {
    const { put } = await setup();
    await put(`releases/${A}/1.0/widget-1.0.jar`, 'x');
    const list = await (await fetch(`${s.url}/api/repos/releases/assets?prefix=${A}/1.0/`)).json();
    expect(list.items[0]).toMatchObject({ path: `${A}/1.0/widget-1.0.jar`, uploader: 'ci:acme/widgets' });
  });

  it('refuses paths outside the Maven layout with 400 and stores nothing', async () => {
    const { put } = await setup();
    for (const p of [
      'widget.jar',
      'org/widget.jar',
      `${A}/1.0/other-1.0.jar`,
      `${A}/1.0/widget-2.0.jar`,
      `${A}/1.0/widget-1.0`,
      `${A}/1.0-SNAPSHOT/widget-1.0-2025.jar`,
      `${A}/1.0/widget-1.0.jar.sha1.md5`,
      'maven-metadata.xml',
      `org/ac%20me/widget/1.0/widget-1.0.jar`,
      `org/.acme/widget/1.0/widget-1.0.jar`,
    ]) {
      const r = await put(`releases/${p}`, 'x');
      expect(r.status, p).toBe(400);
      expect((await r.json()).error).toBeTruthy();
    }
    for (const p of [`${A}/%2e%2e/%2e%2e/x/1.0/x-1.0.jar`, `${A}/../../x/1.0/x-1.0.jar`, `${A}/1.0/..%2f..%2fwidget-1.0.jar`, `${A}/1.0/widget-1.0.jar%00`]) {
      expect((await rawRequest(s.port, 'PUT', `/maven/releases/${p}`, 'pub-releases')).status, p).toBe(400);
    }
    expect((await (await fetch(`${s.url}/api/repos/releases/assets`)).json()).items).toEqual([]);
  });

  it('applies the version policy: release repositories refuse SNAPSHOTs, snapshot repositories refuse releases', async () => {
    const { put } = await setup();
    let r = await put(`rel-only/${A}/1.0-SNAPSHOT/widget-1.0-SNAPSHOT.jar`, 'x', 'pub-rel-only');
    expect(r.status).toBe(400);
    expect((await r.json()).error).toMatch(/version policy release/);
    expect((await put(`rel-only/${A}/1.0/widget-1.0.jar`, 'x', 'pub-rel-only')).status).toBe(201);
    r = await put(`snap-only/${A}/1.0/widget-1.0.jar`, 'x', 'pub-snap-only');
    expect(r.status).toBe(400);
    expect((await put(`snap-only/${A}/1.0-SNAPSHOT/widget-1.0-20250101.120000-1.jar`, 'x', 'pub-snap-only')).status).toBe(201);
    expect((await put(`snap-only/${A}/maven-metadata.xml`, artifactMetadata(['1.0-SNAPSHOT']), 'pub-snap-only')).status).toBe(201);
  });

  it('refuses an invalid version policy in a repository config', async () => {
    await setup();
    await expect(s.ctx.repos.create({ name: 'bad', format: 'maven', config: { version_policy: 'sometimes' } })).rejects.toThrow(/version_policy/);
    const formats = await (await fetch(`${s.url}/api/formats`)).json();
    expect(formats).toContainEqual({ name: 'maven', title: 'Maven and Gradle', default_config: { version_policy: 'mixed' } });
  });

  it('answers 413 over max_upload_bytes and leaves nothing behind', async () => {
    const { put, get } = await setup();
    await s.ctx.settings.patch({ max_upload_bytes: 1000 });
    const r = await put(`releases/${A}/1.0/widget-1.0.jar`, randomBytes(5000));
    expect(r.status).toBe(413);
    expect((await r.json()).error).toMatch(/1000 bytes/);
    expect((await get(`releases/${A}/1.0/widget-1.0.jar`)).status).toBe(404);
    expect(readdirSync(join(s.dataDir, 'spool'))).toEqual([]);
  });

  it('answers 413 for a maven-metadata.xml larger than any real one and keeps the stored document', async () => {
    const { put, get } = await setup();
    expect((await put(`releases/${A}/maven-metadata.xml`, artifactMetadata(['1.0']))).status).toBe(201);
    const r = await put(`releases/${A}/maven-metadata.xml`, Buffer.alloc(16 * 1024 * 1024 + 1, ' '));
    expect(r.status).toBe(413);
    expect(parseMetadata(await (await get(`releases/${A}/maven-metadata.xml`)).text()).versioning!.versions!.version).toEqual(['1.0']);
    expect(readdirSync(join(s.dataDir, 'spool'))).toEqual([]);
  });
});

describe('maven format: checksums', () => {
  it('answers checksums that were never uploaded from the stored file, in every algorithm', async () => {
    const { put, get } = await setup();
    const jar = randomBytes(10_000);
    await put(`releases/${A}/1.0/widget-1.0.jar`, jar);
    for (const alg of ['md5', 'sha1', 'sha256', 'sha512']) {
      const r = await get(`releases/${A}/1.0/widget-1.0.jar.${alg}`);
      expect(r.status, alg).toBe(200);
      expect(r.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(await r.text()).toBe(hex(alg, jar));
      const h = await fetch(`${s.url}/maven/releases/${A}/1.0/widget-1.0.jar.${alg}`, { method: 'HEAD' });
      expect(h.headers.get('content-length')).toBe(String(hex(alg, jar).length));
    }
    expect((await get(`releases/${A}/1.0/widget-1.0.pom.sha1`)).status).toBe(404);
  });

  it('accepts a matching checksum upload with 200 and refuses a mismatching one with 409', async () => {
    const { put, get } = await setup();
    const jar = Buffer.from('the jar');
    await put(`releases/${A}/1.0/widget-1.0.jar`, jar);
    // The file's checksums already exist (derived from it): a matching upload is an identical retry.
    expect((await put(`releases/${A}/1.0/widget-1.0.jar.sha1`, hex('sha1', jar))).status).toBe(200);
    // sha1sum's "hex  name" form and upper case are the same checksum
    expect((await put(`releases/${A}/1.0/widget-1.0.jar.sha1`, `${hex('sha1', jar).toUpperCase()}  widget-1.0.jar\n`)).status).toBe(200);
    const bad = await put(`releases/${A}/1.0/widget-1.0.jar.md5`, hex('md5', 'other bytes'));
    expect(bad.status).toBe(409);
    expect((await bad.json()).error).toMatch(/does not match/);
    expect(await (await get(`releases/${A}/1.0/widget-1.0.jar.md5`)).text()).toBe(hex('md5', jar));
    const paths = (await (await fetch(`${s.url}/api/repos/releases/assets`)).json()).items.map((i: { path: string }) => i.path);
    expect(paths).toEqual([`${A}/1.0/widget-1.0.jar`]);
  });

  it('verifies the sha256 and sha512 files newer Gradle and Maven upload', async () => {
    const { put } = await setup();
    const jar = randomBytes(2000);
    await put(`releases/${A}/1.0/widget-1.0.jar`, jar);
    expect((await put(`releases/${A}/1.0/widget-1.0.jar.sha256`, hex('sha256', jar))).status).toBe(200);
    expect((await put(`releases/${A}/1.0/widget-1.0.jar.sha512`, hex('sha512', jar))).status).toBe(200);
    expect((await put(`releases/${A}/1.0/widget-1.0.jar.sha512`, hex('sha512', 'other'))).status).toBe(409);
    expect((await put(`releases/${A}/1.0/widget-1.0.jar.sha256`, hex('sha512', jar))).status).toBe(400);
  });

  it('answers 413 for a checksum body larger than any checksum', async () => {
    const { put } = await setup();
    await put(`releases/${A}/1.0/widget-1.0.jar`, 'x');
    expect((await put(`releases/${A}/1.0/widget-1.0.jar.sha1`, 'a'.repeat(10_000))).status).toBe(413);
  });

  it('refuses a checksum body that is not a digest with 400', async () => {
    const { put } = await setup();
    await put(`releases/${A}/1.0/widget-1.0.jar`, 'x');
    for (const body of ['not a checksum', hex('md5', 'x'), '']) {
      expect((await put(`releases/${A}/1.0/widget-1.0.jar.sha1`, body)).status, body).toBe(400);
    }
  });

  it('holds a checksum that arrives before its file and refuses a release file that disagrees with it', async () => {
    const { put, get } = await setup();
    expect((await put(`releases/${A}/1.0/widget-1.0.jar.sha1`, hex('sha1', 'right bytes'))).status).toBe(201);
    expect((await get(`releases/${A}/1.0/widget-1.0.jar.sha1`)).status).toBe(404); // nothing to describe yet
    const r = await put(`releases/${A}/1.0/widget-1.0.jar`, 'wrong bytes');
    expect(r.status).toBe(409);
    expect((await r.json()).error).toMatch(/does not match the checksum uploaded before it/);
    expect((await get(`releases/${A}/1.0/widget-1.0.jar`)).status).toBe(404);
    expect((await put(`releases/${A}/1.0/widget-1.0.jar`, 'right bytes')).status).toBe(201);
    expect(await (await get(`releases/${A}/1.0/widget-1.0.jar.sha1`)).text()).toBe(hex('sha1', 'right bytes'));
    // the held copy is gone: from now on the checksum is derived from the file
    const paths = (await (await fetch(`${s.url}/api/repos/releases/assets`)).json()).items.map((i: { path: string }) => i.path);
    expect(paths).toEqual([`${A}/1.0/widget-1.0.jar`]);
  });

  it('keeps checksums of a replaced SNAPSHOT file in step with its new bytes', async () => {
    const { put, get } = await setup();
    const p = `releases/${A}/2.0-SNAPSHOT/widget-2.0-SNAPSHOT.jar`;
    await put(p, 'one');
    await put(`${p}.sha1`, hex('sha1', 'one'));
    expect((await put(p, 'two')).status).toBe(200);
    expect(await (await get(`${p}.sha1`)).text()).toBe(hex('sha1', 'two'));
    expect((await put(`${p}.sha1`, hex('sha1', 'one'))).status).toBe(409);
    expect((await put(`${p}.sha1`, hex('sha1', 'two'))).status).toBe(200);
  });
});

describe('maven format: maven-metadata.xml', () => {
  it('refuses metadata with a DTD or entities (XXE) with 400 and stores nothing', async () => {
    const { put, get } = await setup();
    const xxe = `<?xml version="1.0"?>
<!DOCTYPE metadata [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
<metadata><groupId>org.acme</groupId><artifactId>widget</artifactId><versioning><versions><version>&xxe;</version></versions></versioning></metadata>`;
    const r = await put(`releases/${A}/maven-metadata.xml`, xxe);
    expect(r.status).toBe(400);
    expect((await r.json()).error).toMatch(/DTD/);
    const laughs = `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;">]><metadata><groupId>&lol2;</groupId></metadata>`;
    expect((await put(`releases/${A}/maven-metadata.xml`, laughs)).status).toBe(400);
    expect((await get(`releases/${A}/maven-metadata.xml`)).status).toBe(404);
  });

  it('refuses malformed metadata and metadata describing another artifact with 400', async () => {
    const { put } = await setup();
    expect((await put(`releases/${A}/maven-metadata.xml`, '<metadata><groupId>org.acme</groupId>')).status).toBe(400);
    expect((await put(`releases/${A}/maven-metadata.xml`, '<project/>')).status).toBe(400);
    const other = artifactMetadata(['1.0']).replace('<artifactId>widget', '<artifactId>gadget');
    const r = await put(`releases/${A}/maven-metadata.xml`, other);
    expect(r.status).toBe(400);
    expect((await r.json()).error).toMatch(/describes artifact gadget/);
  });

  it('merges Maven 2 style artifact metadata that also names the last deployed <version>', async () => {
    const { put, get } = await setup();
    await put(`releases/${A}/1.0/widget-1.0.jar`, 'a');
    await put(`releases/${A}/1.1/widget-1.1.jar`, 'b');
    const maven2 = artifactMetadata(['1.1']).replace('<artifactId>widget</artifactId>', '<artifactId>widget</artifactId>\n  <version>1.1</version>');
    expect((await put(`releases/${A}/maven-metadata.xml`, maven2)).status).toBe(201);
    const doc = parseMetadata(await (await get(`releases/${A}/maven-metadata.xml`)).text());
    expect(doc.versioning!.versions!.version).toEqual(['1.0', '1.1']);
  });

  it('stores a client document that already lists every version byte for byte, and overwrites it with 200', async () => {
    const { put, get } = await setup();
    await put(`releases/${A}/1.0/widget-1.0.jar`, 'a');
    const doc = artifactMetadata(['1.0']);
    expect((await put(`releases/${A}/maven-metadata.xml`, doc)).status).toBe(201);
    expect(await (await get(`releases/${A}/maven-metadata.xml`)).text()).toBe(doc);
    await put(`releases/${A}/1.1/widget-1.1.jar`, 'b');
    const next = artifactMetadata(['1.0', '1.1']);
    expect((await put(`releases/${A}/maven-metadata.xml`, next)).status).toBe(200);
    expect((await put(`releases/${A}/maven-metadata.xml.sha1`, hex('sha1', next))).status).toBe(200);
    expect(await (await get(`releases/${A}/maven-metadata.xml.sha1`)).text()).toBe(hex('sha1', next));
  });

  it('loses no version when many versions are deployed concurrently from stale metadata', async () => {
    const { put, get } = await setup();
    const versions = Array.from({ length: 24 }, (_, i) => `1.${i}`);
    const results = await Promise.all(
      versions.map(async (v) => {
        await put(`releases/${A}/${v}/widget-${v}.jar`, `jar ${v}`);
        await put(`releases/${A}/${v}/widget-${v}.pom`, `pom ${v}`);
        // Each deploy read the metadata before the others wrote theirs: it lists only its own version.
        const doc = artifactMetadata([v]);
        const r = await put(`releases/${A}/maven-metadata.xml`, doc);
        const sha1 = await put(`releases/${A}/maven-metadata.xml.sha1`, hex('sha1', doc));
        return [r.status, sha1.status];
      }),
    );
    for (const [meta, sum] of results) {
      expect([200, 201]).toContain(meta);
      expect([200, 201]).toContain(sum); // the client's checksum of what it sent is accepted
    }
    const text = await (await get(`releases/${A}/maven-metadata.xml`)).text();
    const doc = parseMetadata(text);
    expect([...doc.versioning!.versions!.version].sort()).toEqual([...versions].sort());
    expect(doc.versioning!.versions!.version[0]).toBe('1.0');
    expect(doc.versioning!.latest).toBe('1.23');
    expect(doc.versioning!.release).toBe('1.23');
    expect(await (await get(`releases/${A}/maven-metadata.xml.sha1`)).text()).toBe(hex('sha1', text));
  });

  it('computes latest and release in Maven version order, not in deploy order', async () => {
    const { put, get } = await setup();
    for (const v of ['1.10', '1.9', '2.0-SNAPSHOT', '1.10-rc1']) await put(`releases/${A}/${v}/widget-${v}.pom`, v);
    // A deploy of an older line after a newer one: Maven itself would write latest=release=1.9.
    await put(`releases/${A}/maven-metadata.xml`, artifactMetadata(['1.10', '2.0-SNAPSHOT', '1.10-rc1', '1.9']));
    const doc = parseMetadata(await (await get(`releases/${A}/maven-metadata.xml`)).text());
    expect(doc.versioning!.versions!.version).toEqual(['1.9', '1.10-rc1', '1.10', '2.0-SNAPSHOT']);
    expect(doc.versioning!.latest).toBe('2.0-SNAPSHOT');
    expect(doc.versioning!.release).toBe('1.10');
  });

  it('resolves a -SNAPSHOT file name to the newest timestamped build through the version metadata', async () => {
    const { put, get } = await setup();
    const dir = `releases/${A}/3.0-SNAPSHOT`;
    await put(`${dir}/widget-3.0-20250101.120000-1.jar`, 'build one');
    expect((await put(`${dir}/maven-metadata.xml`, snapshotMetadata('20250101.120000', 1))).status).toBe(201);
    await put(`${dir}/widget-3.0-20250102.120000-2.jar`, 'build two');
    expect((await put(`${dir}/maven-metadata.xml`, snapshotMetadata('20250102.120000', 2))).status).toBe(200);
    expect(await (await get(`${dir}/widget-3.0-SNAPSHOT.jar`)).text()).toBe('build two');
    expect(await (await get(`${dir}/widget-3.0-SNAPSHOT.jar.sha1`)).text()).toBe(hex('sha1', 'build two'));
    expect(await (await get(`${dir}/widget-3.0-20250101.120000-1.jar`)).text()).toBe('build one');
    // A late, older document cannot move the snapshot pointer back.
    await put(`${dir}/maven-metadata.xml`, snapshotMetadata('20250101.120000', 1));
    expect(await (await get(`${dir}/widget-3.0-SNAPSHOT.jar`)).text()).toBe('build two');
  });
});

describe('maven format: browsing', () => {
  it('answers an HTML index of a directory from the asset index', async () => {
    const { put, get } = await setup();
    await put(`releases/${A}/1.0/widget-1.0.jar`, 'jar');
    await put(`releases/${A}/1.0/widget-1.0.pom`, 'pom');
    await put(`releases/${A}/1.1/widget-1.1.jar`, 'jar');
    await put(`releases/org/acme/gadget/1.0/gadget-1.0.jar`, 'jar');
    let r = await get(`releases/${A}/`, undefined, { Accept: 'text/html' });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/html/);
    let html = await r.text();
    expect(html).toContain('<a href="1.0/"');
    expect(html).toContain('<a href="1.1/"');
    expect(html).toContain('<a href="../">../</a>');
    r = await get(`releases/${A}/1.0/`);
    html = await r.text();
    expect(html).toContain('<a href="widget-1.0.jar"');
    expect(html).toContain('<a href="widget-1.0.pom"');
    expect(html).toContain('<a href="widget-1.0.pom.sha1"'); // derived side files are listed like Central's
    expect(html).toContain('<a href="widget-1.0.jar.md5"');
    r = await get('releases/');
    html = await r.text();
    expect(html).toMatch(/<a href="org\/"/);
    expect(html).not.toContain('../');
  });

  it('redirects a directory without its trailing slash and 404s an empty one', async () => {
    const { put, get } = await setup();
    await put(`releases/${A}/1.0/widget-1.0.jar`, 'jar');
    let r = await get(`releases/org/acme`, undefined, { Accept: 'text/html' });
    expect(r.status).toBe(301);
    expect(r.headers.get('location')).toBe('/maven/releases/org/acme/');
    r = await get('releases');
    expect(r.status).toBe(301);
    expect(r.headers.get('location')).toBe('/maven/releases/');
    expect((await get('releases/org/nothing/')).status).toBe(404);
    expect((await get(`releases/${A}/1.0/widget-1.0.jar/`)).status).toBe(404);
  });

  it('applies the read rules to indexes: a private repository challenges anonymous browsers', async () => {
    const { put, get } = await setup();
    await put(`private/${A}/1.0/widget-1.0.jar`, 'jar', 'pub-private');
    const r = await get('private/org/', undefined, { Accept: 'text/html' });
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toMatch(/^Basic/);
    expect((await get('private/org/', 'bob')).status).toBe(403);
    expect(await (await get('private/org/', 'alice')).text()).toContain('acme/');
  });
});

describe('maven format: usage', () => {
  it('offers Maven and Gradle snippets with the real URL and credentials from the environment only', async () => {
    await setup();
    const u = await (await fetch(`${s.url}/api/repos/private/usage`, { headers: { Authorization: basic('alice') } })).json();
    expect(u.base_url).toBe(s.url);
    const titles = u.snippets.map((x: { title: string }) => x.title).join('\n');
    for (const t of ['settings.xml', 'distributionManagement', 'settings.gradle.kts', 'build.gradle.kts', 'settings.gradle (', 'build.gradle']) expect(titles).toContain(t);
    const all = u.snippets.map((x: { code: string }) => x.code).join('\n');
    expect(all).toContain(`${s.url}/maven/private`);
    expect(all).toContain('${env.TROVE_TOKEN}');
    expect(all).toContain('${env.TROVE_PUBLISH_TOKEN}');
    expect(all).toContain('System.getenv("TROVE_PUBLISH_TOKEN")');
    expect(all).toContain('pluginManagement');
    // The CLI, installed from this server, opens the session and sets TROVE_PUBLISH_TOKEN.
    expect(all).toContain(`npm install -g ${s.url}/downloads/trove-cli.tgz`);
    expect(all).toContain('trove exec --repo private -- mvn deploy');
    expect(all).toContain('trove exec --repo private -- ./gradlew publish');
    expect(all).not.toMatch(/trs_[A-Za-z0-9]{8}|trp_[A-Za-z0-9]{8}/);
    const open = await (await fetch(`${s.url}/api/repos/releases/usage`)).json();
    expect(open.snippets.map((x: { code: string }) => x.code).join('\n')).not.toContain('TROVE_TOKEN}');
  });
});
