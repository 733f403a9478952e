import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BlobDriver } from '@trove/blobstore';
import { startS3Server, type TestS3Server } from '@trove/blobstore/testing/s3-server';
import { invalidSettings } from '@trove/core';
import type { TestServer } from '@trove/core/testing/server';
import { client, filesUnder, s3Settings, sha, startStorageServer, until } from './storage-server.js';

// The storage move's guards: what a refused PATCH, a nested location, a late cancel, an unflushed
// switch and a same-place check that cannot answer must never do to the blobs.

let s3: TestS3Server;
beforeAll(async () => {
  s3 = await startS3Server();
});
afterAll(async () => {
  await s3?.close();
});

/** Blob files under an fs root (its `sha256/` tree). */
function blobsUnder(root: string): string[] {
  return filesUnder(join(root, 'sha256'));
}

/** Object names in the test bucket, relative to the bucket. */
function objects(): string[] {
  const dir = join(s3.dir, s3.bucket);
  return filesUnder(dir)
    .filter((f) => f.endsWith('._S3rver_object'))
    .map((f) => f.slice(dir.length + 1).replace(/\._S3rver_object$/, ''));
}

const setting = async (c: ReturnType<typeof client>, key: string) =>
  (await c.api('GET', '/settings')).body.groups.flatMap((g: any) => g.settings).find((x: any) => x.key === key).value;

const waitEnded = (c: ReturnType<typeof client>, id: string) =>
  until(() => c.api('GET', `/storage/moves/${id}`), (r) => r.body.state !== 'copying' && (r.body.state !== 'done' || r.body.old_removed !== null), 'the move to end', 60_000);

async function putFiles(c: ReturnType<typeof client>, n: number, tag: string) {
  const files = new Map<string, Buffer>();
  for (let i = 0; i < n; i++) {
    const b = randomBytes(1000 + i);
    files.set(`${tag}/f${i}.bin`, b);
    await c.put(`${tag}/f${i}.bin`, b);
  }
  return files;
}

async function expectReadable(c: ReturnType<typeof client>, files: Map<string, Buffer>) {
  for (const [p, b] of files) {
    const r = await c.get(p);
    expect(r.status, p).toBe(200);
    expect(sha(Buffer.from(await r.arrayBuffer())), p).toBe(sha(b));
  }
}

/** A settings check registered after storage's, refusing as auth's SSO discovery check does. */
const refuseDebugLevel = (server: TestServer) =>
  server.ctx.settings.addPatchHook(async ({ changes }) => {
    if (changes.get('log.level') === 'debug') throw invalidSettings('SSO discovery failed; nothing was saved', { 'oidc.issuer': 'simulated' });
  });

describe('a PATCH another settings check refuses', () => {
  it('leaves an empty store in place: uploads after it land in the old store and survive a restart', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'trove-refused-'));
    const masterKey = randomBytes(32);
    let server = await startStorageServer({ dataDir, masterKey });
    const c = client(() => server.url);
    try {
      refuseDebugLevel(server);
      const other = mkdtempSync(join(tmpdir(), 'trove-refused-other-'));
      const r = await c.api('PATCH', '/settings', { 'fs.root': other, 'log.level': 'debug' });
      expect(r.status).toBe(400);
      expect(await setting(c, 'fs.root')).toBe('');
      const body = randomBytes(5000);
      await c.put('after.bin', body);
      expect(blobsUnder(other)).toEqual([]);
      expect(blobsUnder(join(dataDir, 'blobs'))).toHaveLength(1);
      await server.close();
      server = await startStorageServer({ dataDir, masterKey });
      const g = await c.get('after.bin');
      expect(g.status).toBe(200);
      expect(sha(Buffer.from(await g.arrayBuffer()))).toBe(sha(body));
    } finally {
      await server.close();
    }
  });

  it('starts no move on a store that holds files', async () => {
    const server = await startStorageServer();
    const c = client(() => server.url);
    try {
      refuseDebugLevel(server);
      const files = await putFiles(c, 5, 'r');
      const r = await c.api('PATCH', '/settings', { 'fs.root': mkdtempSync(join(tmpdir(), 'trove-refused-other-')), 'log.level': 'debug' });
      expect(r.status).toBe(400);
      expect((await c.api('GET', '/storage/moves/current')).status).toBe(404);
      await sleep(300); // a move started anyway would have switched by now
      expect(await setting(c, 'fs.root')).toBe('');
      await expectReadable(c, files);
    } finally {
      await server.close();
    }
  });
});

describe('a location nested in the current one', () => {
  it('is refused with 400 inside the own tree of the old fs root, also through a symlink', async () => {
    const server = await startStorageServer();
    const c = client(() => server.url);
    try {
      const files = await putFiles(c, 5, 'n');
      const root = join(server.dataDir, 'blobs');
      const link = join(mkdtempSync(join(tmpdir(), 'trove-link-')), 'into-old');
      mkdirSync(join(root, 'sha256', 'elsewhere'), { recursive: true });
      symlinkSync(join(root, 'sha256', 'elsewhere'), link);
      for (const to of [join(root, 'sha256'), join(root, '.tmp', 'x'), link]) {
        const r = await c.api('PATCH', '/settings', { 'fs.root': to });
        expect(r.status, to).toBe(400);
        expect(r.body.fields, to).toHaveProperty(['fs.root']);
        // The admin's "Test" before saving says the same.
        const tested = await c.api('POST', '/settings/storage/test', { 'fs.root': to });
        expect(tested.status, to).toBe(400);
        expect(tested.body, to).toMatchObject({ ok: false, fields: { 'fs.root': expect.any(String) } });
      }
      expect((await c.api('GET', '/storage/moves/current')).status).toBe(404);
      expect(await setting(c, 'fs.root')).toBe('');
      await expectReadable(c, files);
    } finally {
      await server.close();
    }
  });

  it('is refused with 400 for an S3 prefix inside the keys of the current store, or holding it among its own', async () => {
    const server = await startStorageServer();
    const c = client(() => server.url);
    try {
      // A current prefix that itself lies in the keys a store at the top of the bucket would use.
      expect((await c.api('PATCH', '/settings', s3Settings(s3, 'sha256/nest'))).status).toBe(200); // empty: switches at once
      const files = await putFiles(c, 5, 'n');
      for (const prefix of ['sha256/nest/sha256', 'sha256/nest/sha256/x', 'sha256/nest/.trove-move', '']) {
        const r = await c.api('PATCH', '/settings', { 's3.prefix': prefix });
        expect(r.status, prefix).toBe(400);
        expect(r.body.fields, prefix).toHaveProperty(['s3.prefix']);
      }
      expect(await setting(c, 's3.prefix')).toBe('sha256/nest');
      await expectReadable(c, files);
    } finally {
      await server.close();
    }
  });

  it('reached under another spelling of the endpoint: the cleanup deletes only the old store\'s blobs', async () => {
    const own = await startS3Server();
    const server = await startStorageServer();
    const c = client(() => server.url);
    try {
      expect((await c.api('PATCH', '/settings', s3Settings(own, ''))).status).toBe(200);
      const files = await putFiles(c, 20, 'spelled');
      // The same bucket through `localhost`: not recognisably nested, so the move runs, into <bucket>/sha256/.
      const r = await c.api('PATCH', '/settings', { ...s3Settings(own, 'sha256'), 's3.endpoint': own.endpoint.replace('127.0.0.1', 'localhost') });
      expect(r.status).toBe(202);
      const end = await waitEnded(c, r.body.move.id);
      expect(end.body).toMatchObject({ state: 'done', failed: 0, old_removed: 20 });
      await expectReadable(c, files);
    } finally {
      await server.close();
      await own.close();
    }
  });
});

describe('a cancel during the last pass before the switch', () => {
  it('ends cancelled and keeps the old store', async () => {
    const server = await startStorageServer();
    const c = client(() => server.url);
    try {
      const files = await putFiles(c, 10, 'late');
      // Slow heads on the target (a remote store's round trips): the catch-up pass is the first to ask.
      const blobs = server.ctx.blobs;
      const begin = blobs.beginMove.bind(blobs);
      let inCatchUp!: () => void;
      const catchUp = new Promise<void>((r) => (inCatchUp = r));
      blobs.beginMove = (target: BlobDriver) => {
        const head = target.head.bind(target);
        target.head = async (k) => {
          inCatchUp();
          await sleep(300);
          return head(k);
        };
        begin(target);
      };
      const other = mkdtempSync(join(tmpdir(), 'trove-late-'));
      const r = await c.api('PATCH', '/settings', { 'fs.root': other });
      expect(r.status).toBe(202);
      await catchUp;
      const del = await c.api('DELETE', `/storage/moves/${r.body.move.id}`);
      expect(del.status).toBe(200);
      expect(del.body.state).toBe('cancelled');
      expect(await setting(c, 'fs.root')).toBe('');
      expect(blobsUnder(join(server.dataDir, 'blobs'))).toHaveLength(10);
      await expectReadable(c, files);
    } finally {
      await server.close();
    }
  });
});

describe('the switch', () => {
  it('is on disk before the old store\'s blobs are deleted', async () => {
    const server = await startStorageServer();
    const c = client(() => server.url);
    try {
      const files = await putFiles(c, 10, 'durable');
      const durability = server.ctx.durability;
      const settled = durability.settled.bind(durability);
      let gate: Promise<void> | undefined;
      let open!: () => void;
      let waited = 0;
      durability.settled = () => (gate ? (waited++, gate.then(settled)) : settled());
      const r = await c.api('PATCH', '/settings', { 'fs.root': mkdtempSync(join(tmpdir(), 'trove-durable-')) });
      expect(r.status).toBe(202);
      gate = new Promise<void>((resolve) => (open = resolve)); // WAL flushes hang from here on
      await until(() => c.api('GET', `/storage/moves/${r.body.move.id}`), (x) => x.body.state !== 'copying', 'the switch', 30_000);
      await sleep(500);
      expect((await c.api('GET', `/storage/moves/${r.body.move.id}`)).body).toMatchObject({ state: 'done', old_removed: null });
      expect(blobsUnder(join(server.dataDir, 'blobs'))).toHaveLength(10);
      expect(waited).toBeGreaterThan(0);
      gate = undefined;
      open();
      expect((await waitEnded(c, r.body.move.id)).body).toMatchObject({ state: 'done', old_removed: 10 });
      expect(blobsUnder(join(server.dataDir, 'blobs'))).toEqual([]);
      await expectReadable(c, files);
    } finally {
      await server.close();
    }
  });
});

describe('the check that the old store is another place', () => {
  /** The current store's head fails for keys under `dir`: `failures` times, or always. */
  function failHeads(server: TestServer, dir: string, failures = Infinity) {
    const old = server.ctx.blobs.driver;
    const head = old.head.bind(old);
    const seen = { failed: 0 };
    old.head = async (k) => {
      if (k.startsWith(dir) && seen.failed < failures) {
        seen.failed++;
        throw new Error('connection reset by peer');
      }
      return head(k);
    };
    return seen;
  }

  it('keeps the old store\'s blobs when it cannot answer, and says why in the move record', async () => {
    const server = await startStorageServer();
    const c = client(() => server.url);
    try {
      const files = await putFiles(c, 5, 'unknown');
      const seen = failHeads(server, '.trove-move/');
      const r = await c.api('PATCH', '/settings', { 'fs.root': mkdtempSync(join(tmpdir(), 'trove-unknown-')) });
      expect(r.status).toBe(202);
      const end = await waitEnded(c, r.body.move.id);
      expect(end.body).toMatchObject({ state: 'done', failed: 0, old_removed: 0 });
      expect(end.body.note).toMatch(/old store.*kept.*connection reset by peer/);
      expect(seen.failed).toBeGreaterThan(1); // asked again before giving up
      expect(blobsUnder(join(server.dataDir, 'blobs'))).toHaveLength(5);
      await expectReadable(c, files);
    } finally {
      await server.close();
    }
  });

  it('asks again after an error: a store that answers the second time is emptied', async () => {
    const server = await startStorageServer();
    const c = client(() => server.url);
    try {
      await putFiles(c, 5, 'retry');
      failHeads(server, '.trove-move/', 1);
      const r = await c.api('PATCH', '/settings', { 'fs.root': mkdtempSync(join(tmpdir(), 'trove-retry-')) });
      const end = await waitEnded(c, r.body.move.id);
      expect(end.body).toMatchObject({ state: 'done', old_removed: 5, note: null });
      expect(blobsUnder(join(server.dataDir, 'blobs'))).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it('in the PATCH probe, asks again after an error: the same place under another name moves nothing', async () => {
    const server = await startStorageServer();
    const c = client(() => server.url);
    try {
      const files = await putFiles(c, 5, 'alias');
      const alias = join(mkdtempSync(join(tmpdir(), 'trove-alias-')), 'blobs');
      symlinkSync(join(server.dataDir, 'blobs'), alias);
      failHeads(server, '.trove-probe/', 1);
      const r = await c.api('PATCH', '/settings', { 'fs.root': alias });
      expect(r.status).toBe(200); // saved without a move: an error once is not "another place"
      expect((await c.api('GET', '/storage/moves/current')).status).toBe(404);
      expect(await setting(c, 'fs.root')).toBe(alias);
      await expectReadable(c, files);
    } finally {
      await server.close();
    }
  });
});
