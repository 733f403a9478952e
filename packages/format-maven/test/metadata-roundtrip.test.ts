import { afterEach, describe, expect, it } from 'vitest';
import type { TestServer } from '@trove/core/testing/server';
import { parseMetadata } from '../src/index.js';
import { client, mavenServer } from './server.js';

/**
 * When the server merges maven-metadata.xml it writes the client's document again (fields Trove
 * does not model must survive). What it stores must still be XML, whatever notation the client used.
 */
let s: TestServer;
afterEach(() => s?.close());

const A = 'org/acme/x';
const doc = (head: string, body: string) => `<?xml version="1.0" encoding="UTF-8"?>
<metadata${head}><groupId>org.acme</groupId><artifactId>x</artifactId>${body}<versioning><versions><version>2.0</version></versions></versioning></metadata>`;

/** 1.0 and 2.0 deployed, so a document naming only 2.0 is merged rather than stored as sent. */
async function mergedFrom(body: string) {
  s = await mavenServer();
  const { put, get } = client(s);
  await put(`releases/${A}/1.0/x-1.0.jar`, 'a');
  await put(`releases/${A}/2.0/x-2.0.jar`, 'b');
  expect((await put(`releases/${A}/maven-metadata.xml`, body)).status).toBe(201);
  const stored = await (await get(`releases/${A}/maven-metadata.xml`)).text();
  const parsed = parseMetadata(stored);
  expect(parsed.versioning!.versions!.version).toEqual(['1.0', '2.0']);
  return stored;
}

describe('merged maven-metadata.xml', () => {
  it('is refused with CDATA sections, which Maven never writes: nothing is stored', async () => {
    s = await mavenServer();
    const { put, get } = client(s);
    await put(`releases/${A}/1.0/x-1.0.jar`, 'a');
    for (const body of [doc('', '<name><![CDATA[R&D <tools>]]></name>'), doc('', '').replace('<groupId>org.acme</groupId>', '<groupId><![CDATA[org.acme]]></groupId>')]) {
      const r = await put(`releases/${A}/maven-metadata.xml`, body);
      expect(r.status).toBe(400);
      expect((await r.json()).error).toMatch(/CDATA/);
    }
    expect((await get(`releases/${A}/maven-metadata.xml`)).status).toBe(404);
  });

  it('is stored only when what the server writes parses again', async () => {
    const stored = await mergedFrom(doc('', '<name>R&amp;D &lt;tools&gt;</name>'));
    expect(stored).toMatch(/<name>R&amp;D &lt;tools&gt;<\/name>/);
  });
});
