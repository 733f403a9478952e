import { Readable } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { importAsset } from '@trove/core';
import type { TestServer } from '@trove/core/testing/server';
import { snapshotMetadata } from './metadata-fixtures.js';
import { client, mavenServer } from './server.js';

let s: TestServer | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

const DIR = 'org/acme/widget';
const wrap = (inner: string) => `<?xml version="1.0" encoding="UTF-8"?>\n<metadata><groupId>org.acme</groupId><artifactId>widget</artifactId>${inner}</metadata>`;

describe('hostile maven-metadata.xml', () => {
  const hostile: [string, string][] = [
    ['a <__proto__> element', wrap('<versioning><__proto__><polluted>yes</polluted></__proto__></versioning>')],
    ['a top-level <__proto__> element', wrap('<__proto__><isAdmin>true</isAdmin></__proto__>')],
    ['a <constructor> element', wrap('<versioning><constructor><prototype><x>1</x></prototype></constructor></versioning>')],
    ['a top-level <constructor> element', wrap('<constructor>x</constructor>')],
    ['a <prototype> element', wrap('<versioning><versions><version>1.0</version></versions><prototype>x</prototype></versioning>')],
    ['200,000 nested elements', wrap('<a>'.repeat(200_000) + '</a>'.repeat(200_000))],
  ];
  for (const [what, body] of hostile) {
    it(`answers ${what} with 400 {error} and stores nothing`, async () => {
      s ??= await mavenServer();
      const { put, get } = client(s);
      const r = await put(`releases/${DIR}/maven-metadata.xml`, body);
      expect(r.status).toBe(400);
      expect(typeof (await r.json()).error).toBe('string');
      expect((await get(`releases/${DIR}/maven-metadata.xml`)).status).toBe(404);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
    });
  }
});

/**
 * A document of unclosed tags (`<a<a<a...`) made the tag scan backtrack cubically: 6 KB held the
 * event loop for over ten seconds. Everything runs in this one process, so a slow answer to either
 * request below means the whole server stood still.
 */
describe('maven-metadata.xml that is expensive to scan', () => {
  const unclosed = '<metadata>' + '<a'.repeat(3000);

  /** Runs `work` and, while it runs, asks the server for its health: both must answer promptly. */
  async function timed(work: () => Promise<Response>) {
    const started = performance.now();
    const pending = work();
    await new Promise((r) => setTimeout(r, 20));
    const askedAt = performance.now();
    const health = await fetch(`${s!.url}/healthz`);
    const healthMs = performance.now() - askedAt;
    const r = await pending;
    return { r, ms: performance.now() - started, health: health.status, healthMs };
  }

  it('answers a PUT of unclosed tags with 400 at once, and the server keeps answering meanwhile', { timeout: 120_000 }, async () => {
    s ??= await mavenServer();
    const { put, get } = client(s);
    const { r, ms, health, healthMs } = await timed(() => put(`releases/${DIR}/maven-metadata.xml`, unclosed));
    expect(r.status).toBe(400);
    expect(ms).toBeLessThan(1000);
    expect(health).toBe(200);
    expect(healthMs).toBeLessThan(1000);
    expect((await get(`releases/${DIR}/maven-metadata.xml`)).status).toBe(404);
  });

  it('answers an anonymous GET of a -SNAPSHOT name at once when the imported version metadata is hostile', { timeout: 120_000 }, async () => {
    s ??= await mavenServer();
    const repo = s.ctx.repos.require('releases');
    const file = await s.ctx.spool.receive(Readable.from([Buffer.from(unclosed)]), { maxBytes: 1 << 20, algorithms: ['sha1', 'md5'] });
    const dir = `${DIR}/1.0-SNAPSHOT`;
    expect(await importAsset(s.ctx, { repo, path: `${dir}/maven-metadata.xml`, file, contentType: 'text/xml', uploader: 'mirror' })).toMatchObject({ status: 'created' });
    for (let i = 0; i < 2; i++) {
      const { r, ms, health, healthMs } = await timed(() => fetch(`${s!.url}/maven/releases/${dir}/widget-1.0-SNAPSHOT.jar`));
      expect(r.status).toBe(404);
      expect(ms).toBeLessThan(1000);
      expect(health).toBe(200);
      expect(healthMs).toBeLessThan(1000);
    }
  });

  it('reads hostile version metadata once, however often its -SNAPSHOT name is asked for', async () => {
    s ??= await mavenServer();
    const repo = s.ctx.repos.require('releases');
    const file = await s.ctx.spool.receive(Readable.from([Buffer.from(unclosed)]), { maxBytes: 1 << 20, algorithms: ['sha1', 'md5'] });
    const dir = `${DIR}/1.0-SNAPSHOT`;
    await importAsset(s.ctx, { repo, path: `${dir}/maven-metadata.xml`, file, contentType: 'text/xml', uploader: 'mirror' });
    expect((await fetch(`${s.url}/maven/releases/${dir}/widget-1.0-SNAPSHOT.jar`)).status).toBe(404);
    const reads = vi.spyOn(s.ctx.blobs, 'readSmall');
    try {
      for (const name of ['widget-1.0-SNAPSHOT.jar', 'widget-1.0-SNAPSHOT.pom', 'widget-1.0-SNAPSHOT-sources.jar']) {
        expect((await fetch(`${s.url}/maven/releases/${dir}/${name}`)).status).toBe(404);
      }
      expect(reads).not.toHaveBeenCalled();
    } finally {
      reads.mockRestore();
    }
  });

  it('does not read version metadata larger than Maven ever writes to resolve a -SNAPSHOT name', async () => {
    s ??= await mavenServer();
    const { put, get } = client(s);
    const dir = `releases/${DIR}/3.0-SNAPSHOT`;
    expect((await put(`${dir}/widget-3.0-20250101.120000-1.jar`, 'build one')).status).toBe(201);
    const padded = snapshotMetadata('20250101.120000', 1).replace('<versioning>', '<versioning>' + ' '.repeat(1024 * 1024));
    expect((await put(`${dir}/maven-metadata.xml`, padded)).status).toBe(201);
    expect((await get(`${dir}/widget-3.0-SNAPSHOT.jar`)).status).toBe(404);
    expect(await (await get(`${dir}/widget-3.0-20250101.120000-1.jar`)).text()).toBe('build one');
  });
});
