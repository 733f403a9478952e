import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { isTroveError, type OnExisting } from '../src/index.js';
import { coreServer } from './helpers.js';
import type { TestServer } from '../src/testing/server.js';

let s: TestServer;
afterEach(() => s?.close());

type Entry = { path: string; body: string; onExisting?: OnExisting };

/** Commits of bodies spooled first, all started in the same turn: their writes then share transactions. */
async function commitAll(entries: Entry[]) {
  const files = await Promise.all(entries.map(({ body }) => s.ctx.spool.receive(Readable.from([Buffer.from(body)]), { maxBytes: 1e6 })));
  const repo = s.ctx.repos.require('notes');
  const settled = await Promise.allSettled(
    entries.map(({ path, onExisting }, i) => s.ctx.assets.commit({ repo, path, file: files[i]!, contentType: 'text/plain', uploader: 'ci', onExisting: onExisting ?? 'conflict' })),
  );
  return settled.map((o) => (o.status === 'fulfilled' ? o.value.status : isTroveError(o.reason) ? o.reason.code : String(o.reason)));
}

const many = (prefix: string) => Array.from({ length: 15 }, (_, i): Entry => ({ path: `${prefix}-${i}`, body: `${prefix} ${i}` }));

describe('asset commits (the writes of one turn share a transaction)', () => {
  it('lets each commit succeed or fail on its own', async () => {
    s = await coreServer();
    await s.ctx.repos.create({ name: 'notes', format: 'note' });
    await commitAll([{ path: 'taken', body: 'first' }]);
    // Passes the early check, then refuses inside the write transaction, among the others' writes.
    let asked = 0;
    const refuseInTheWrite: OnExisting = () => (++asked === 1 ? 'replace' : 'conflict');
    const statuses = await commitAll([...many('a'), { path: 'taken', body: 'second', onExisting: refuseInTheWrite }, ...many('b')]);
    expect(asked).toBe(2);
    expect(statuses).toEqual([...Array(15).fill('created'), 'asset_exists', ...Array(15).fill('created')]);
    const repo = s.ctx.repos.require('notes');
    for (const { path, body } of [...many('a'), ...many('b')]) expect(s.ctx.assets.get(repo, path)?.size).toBe(body.length);
    expect(s.ctx.assets.get(repo, 'taken')?.size).toBe('first'.length);
  });

  it('lets exactly one of two commits of the same new path win', async () => {
    s = await coreServer();
    await s.ctx.repos.create({ name: 'notes', format: 'note' });
    const statuses = await commitAll([{ path: 'p', body: 'one' }, { path: 'p', body: 'two' }, ...many('c')]);
    expect(statuses.slice(0, 2).sort()).toEqual(['asset_exists', 'created']);
    expect(statuses.slice(2)).toEqual(Array(15).fill('created'));
  });

  it('lets imports of different turns share a transaction without any of them failing for another', async () => {
    s = await coreServer();
    await s.ctx.repos.create({ name: 'notes', format: 'note' });
    await commitAll([{ path: 'taken', body: 'first' }]);
    const repo = s.ctx.repos.require('notes');
    let asked = 0;
    const refuseInTheWrite: OnExisting = () => (++asked === 1 ? 'replace' : 'conflict');
    const entries: Entry[] = [...many('i'), { path: 'taken', body: 'second', onExisting: refuseInTheWrite }, ...many('j')];
    const commits: Promise<string>[] = [];
    for (const { path, body, onExisting } of entries) {
      const file = await s.ctx.spool.receive(Readable.from([Buffer.from(body)]), { maxBytes: 1e6 });
      commits.push(s.ctx.assets.commit({ repo, path, file, contentType: 'text/plain', uploader: 'nexus', onExisting: onExisting ?? 'replace', importing: true }).then((r) => r.status, (e) => (isTroveError(e) ? e.code : String(e))));
      await new Promise((r) => setImmediate(r)); // the next import arrives in a later turn, as a mirror's do
    }
    expect(await Promise.all(commits)).toEqual([...Array(15).fill('created'), 'asset_exists', ...Array(15).fill('created')]);
    for (const { path, body } of [...many('i'), ...many('j')]) expect(s.ctx.assets.get(repo, path)?.size).toBe(body.length);
  });

  it('refuses a write that reaches its commit after the repository was locked, but not an import', async () => {
    s = await coreServer();
    await s.ctx.repos.create({ name: 'notes', format: 'note' });
    const repo = s.ctx.repos.require('notes'); // as a write request saw it when it opened, before the lock
    const [upload, imported] = await Promise.all(['upload', 'import'].map((body) => s.ctx.spool.receive(Readable.from([Buffer.from(body)]), { maxBytes: 1e6 })));
    s.ctx.repos.setLock('notes', 'nexus/notes');
    const write = (path: string, file: typeof upload, importing: boolean) => s.ctx.assets.commit({ repo, path, file: file!, contentType: 'text/plain', uploader: 'ci', onExisting: 'replace', importing });
    await expect(write('late', upload, false)).rejects.toMatchObject({ code: 'repo_mirrored', message: 'repository notes mirrors nexus/notes; writes are refused until cut-over' });
    expect(s.ctx.assets.get(repo, 'late')).toBeUndefined();
    await expect(write('mirrored', imported, true)).resolves.toMatchObject({ status: 'created' });
  });
});
