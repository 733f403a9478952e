import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { importAsset } from '@trove/core';
import type { TestServer } from '@trove/core/testing/server';
import { mavenServer } from './server.js';

let s: TestServer;
afterEach(() => s?.close());

const spool = (text: string) => s.ctx.spool.receive(Readable.from([Buffer.from(text)]), { maxBytes: 1 << 20, algorithms: ['sha1', 'md5'] });
const get = (path: string) => fetch(`${s.url}/maven/releases/${path}`);

describe('imports (the mirror hook)', () => {
  it('lands files of the Maven layout as they are, side files included, and serves them', async () => {
    s = await mavenServer();
    const repo = s.ctx.repos.require('releases');
    const jar = await importAsset(s.ctx, { repo, path: 'com/acme/widget/1.0/widget-1.0.jar', file: await spool('jar bytes'), contentType: 'application/java-archive', uploader: 'jane' });
    expect(jar).toEqual({ status: 'created', path: 'com/acme/widget/1.0/widget-1.0.jar' });
    const sha1 = await importAsset(s.ctx, { repo, path: 'com/acme/widget/1.0/widget-1.0.jar.sha1', file: await spool('0'.repeat(40)), contentType: 'text/plain', uploader: 'jane' });
    expect(sha1).toMatchObject({ status: 'created' });
    expect(await (await get('com/acme/widget/1.0/widget-1.0.jar')).text()).toBe('jar bytes');
    expect(s.ctx.assets.get(repo, 'com/acme/widget/1.0/widget-1.0.jar')!.uploader).toBe('jane');
  });

  it("skips files a Maven GET refuses (Nexus's .index/ and .meta/), with the reason, and stores nothing", async () => {
    s = await mavenServer();
    const repo = s.ctx.repos.require('releases');
    for (const path of ['.meta/prefixes.txt', '.index/nexus-maven-repository-index.gz', 'com/acme/-widget/1.0/x.jar']) {
      const result = await importAsset(s.ctx, { repo, path, file: await spool('x'), contentType: 'text/plain', uploader: 'jane' });
      expect(result).toMatchObject({ status: 'skipped', reason: expect.stringMatching(/not a path Trove serves in a Maven repository/) });
      expect(s.ctx.assets.get(repo, path)).toBeUndefined();
    }
  });

  it('lands files outside the artifact layout that a GET serves, as Nexus holds them', async () => {
    s = await mavenServer();
    const repo = s.ctx.repos.require('releases');
    for (const path of ['archetype-catalog.xml', 'com/acme/KEYS', 'com/acme/widget/1.0/README.txt']) {
      expect(await importAsset(s.ctx, { repo, path, file: await spool(`${path} bytes`), contentType: 'text/plain', uploader: 'jane' })).toMatchObject({ status: 'created', path });
      expect(await (await get(path)).text()).toBe(`${path} bytes`);
    }
  });
});
