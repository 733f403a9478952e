import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { TestServer } from '@trove/core/testing/server';
import { parseMetadata } from '../src/index.js';
import { client, mavenServer } from './server.js';

/**
 * A checksum uploaded before its file is held until the file arrives (docs/decisions.md, "Checksum
 * before its file"). When the file never lands, the held checksum alone must not make its version
 * exist: not in merged metadata, not as a served file, not in a directory index.
 */
let s: TestServer;
afterEach(() => s?.close());

const sha1 = (b: string) => createHash('sha1').update(b).digest('hex');
const A = 'org/acme/w';
const onlyOne = `<?xml version="1.0" encoding="UTF-8"?>
<metadata><groupId>org.acme</groupId><artifactId>w</artifactId>
<versioning><latest>1.0</latest><release>1.0</release><versions><version>1.0</version></versions></versioning></metadata>`;

/**
 * 1.0 deployed. 2.0's jar checksum arrived first, then its jar was refused for disagreeing with it;
 * 2.0's pom checksum arrived first, then its pom was refused as too large, so that one is still held.
 */
async function setup() {
  s = await mavenServer();
  const c = client(s);
  expect((await c.put(`releases/${A}/1.0/w-1.0.jar`, 'jar 1.0')).status).toBe(201);
  expect((await c.put(`releases/${A}/1.0/w-1.0.pom`, '<project/>')).status).toBe(201);
  expect((await c.put(`releases/${A}/2.0/w-2.0.jar.sha1`, sha1('jar 2.0 as built'))).status).toBe(201);
  expect((await c.put(`releases/${A}/2.0/w-2.0.jar`, 'jar 2.0 rebuilt')).status).toBe(409);
  expect((await c.put(`releases/${A}/2.0/w-2.0.pom.sha1`, sha1('<project/>'))).status).toBe(201);
  await s.ctx.settings.patch({ max_upload_bytes: 1000 });
  expect((await c.put(`releases/${A}/2.0/w-2.0.pom`, ' '.repeat(5000))).status).toBe(413);
  return c;
}

describe('checksums held for a file that never landed', () => {
  it('do not put their version into merged maven-metadata.xml', async () => {
    const { put, get } = await setup();
    expect((await put(`releases/${A}/maven-metadata.xml`, onlyOne)).status).toBe(201);
    const doc = parseMetadata(await (await get(`releases/${A}/maven-metadata.xml`)).text());
    expect(doc.versioning!.versions!.version).toEqual(['1.0']);
    expect(doc.versioning!.latest).toBe('1.0');
    expect(doc.versioning!.release).toBe('1.0');
  });

  it('are neither served nor listed as if their file existed', async () => {
    const { get } = await setup();
    expect((await get(`releases/${A}/2.0/w-2.0.jar`)).status).toBe(404);
    for (const held of [`${A}/2.0/w-2.0.jar.sha1`, `${A}/2.0/w-2.0.pom.sha1`]) {
      expect((await get(`releases/${held}`)).status, held).toBe(404);
      expect((await get(`releases/${held}.md5`)).status, `${held}.md5`).not.toBe(200);
    }
    expect((await get(`releases/${A}/2.0/`)).status).toBe(404);
  });

  it('do not refuse the file forever: a client that uploads the file first can deploy it again', async () => {
    const { put, get } = await setup();
    // Maven and Gradle upload the file, then its checksums: the refused jar's retry must land.
    expect((await put(`releases/${A}/2.0/w-2.0.jar`, 'jar 2.0 rebuilt')).status).toBe(201);
    expect((await put(`releases/${A}/2.0/w-2.0.jar.sha1`, sha1('jar 2.0 rebuilt'))).status).toBe(200);
    expect(await (await get(`releases/${A}/2.0/w-2.0.jar.sha1`)).text()).toBe(sha1('jar 2.0 rebuilt'));
    expect((await put(`releases/${A}/2.0/w-2.0.jar.sha1`, sha1('jar 2.0 as built'))).status).toBe(409);
  });
});
