import { afterEach, describe, expect, it } from 'vitest';
import type { TestServer } from '@trove/core/testing/server';
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
