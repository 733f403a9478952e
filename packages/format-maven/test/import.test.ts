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

  it("skips files no Maven GET could reach (Nexus's .index/ and .meta/), with the reason, and stores nothing", async () => {
    s = await mavenServer();
    const repo = s.ctx.repos.require('releases');
    for (const path of ['.meta/prefixes.txt', '.index/nexus-maven-repository-index.gz', 'com/acme/widget/1.0/widget-1.0.jar.sha1.md5']) {
      const result = await importAsset(s.ctx, { repo, path, file: await spool('x'), contentType: 'text/plain', uploader: 'jane' });
      expect(result).toMatchObject({ status: 'skipped', reason: expect.stringMatching(/not part of the Maven layout/) });
      expect(s.ctx.assets.get(repo, path)).toBeUndefined();
    }
  });
});
