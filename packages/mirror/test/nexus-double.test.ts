import { afterEach, describe, expect, it } from 'vitest';
import { NexusDouble } from '../src/testing/nexus-double.js';

let nexus: NexusDouble;
afterEach(() => nexus?.close());

const auth = (u = 'admin', p = 'admin123') => ({ Authorization: `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}` });

async function pages(repo: string) {
  const out: { items: { path: string }[]; continuationToken: string | null }[] = [];
  let token: string | null = null;
  do {
    const q = new URLSearchParams({ repository: repo, ...(token ? { continuationToken: token } : {}) });
    const res = await fetch(`${nexus.url}/service/rest/v1/assets?${q}`, { headers: auth() });
    expect(res.status).toBe(200);
    const body = (await res.json()) as (typeof out)[number];
    out.push(body);
    token = body.continuationToken;
  } while (token);
  return out;
}

describe('Nexus double', () => {
  it('pages by 100 and ends an exact multiple of 100 with an empty page', async () => {
    nexus = await NexusDouble.start();
    nexus.addRepo('r', 'raw');
    for (let i = 0; i < 200; i++) nexus.put('r', `f/${i}.txt`, String(i));
    const got = await pages('r');
    expect(got.map((p) => p.items.length)).toEqual([100, 100, 0]);
    expect(got[2]!.continuationToken).toBeNull();
    nexus.put('r', 'f/last.txt', 'x');
    expect((await pages('r')).map((p) => p.items.length)).toEqual([100, 100, 1]);
  });

  it('writes paths with or without the leading slash', async () => {
    nexus = await NexusDouble.start();
    nexus.addRepo('r', 'raw').put('r', 'a', '1').put('r', 'b', '2');
    nexus.knobs.pathStyle = 'mixed';
    expect((await pages('r'))[0]!.items.map((i) => i.path)).toEqual(['/a', 'b']);
    nexus.knobs.pathStyle = 'bare';
    expect((await pages('r'))[0]!.items.map((i) => i.path)).toEqual(['a', 'b']);
  });

  it('lists assets added during an enumeration later in the same run, and drops deleted ones', async () => {
    nexus = await NexusDouble.start();
    nexus.addRepo('r', 'raw');
    for (let i = 0; i < 150; i++) nexus.put('r', `${i}`, 'x');
    const first = (await (await fetch(`${nexus.url}/service/rest/v1/assets?repository=r`, { headers: auth() })).json()) as { continuationToken: string };
    nexus.put('r', 'added', 'y');
    nexus.remove('r', '120');
    const second = (await (await fetch(`${nexus.url}/service/rest/v1/assets?repository=r&continuationToken=${first.continuationToken}`, { headers: auth() })).json()) as { items: { path: string }[] };
    const paths = second.items.map((i) => i.path);
    expect(paths).toContain('/added');
    expect(paths).not.toContain('/120');
    expect(paths).toHaveLength(50);
  });

  it('refuses wrong credentials with a Nexus Basic challenge, answers 422 and 404 on the listing', async () => {
    nexus = await NexusDouble.start();
    nexus.addRepo('r', 'raw');
    const bad = await fetch(`${nexus.url}/service/rest/v1/status`, { headers: auth('admin', 'nope') });
    expect(bad.status).toBe(401);
    expect(bad.headers.get('www-authenticate')).toMatch(/Sonatype Nexus/);
    expect((await fetch(`${nexus.url}/service/rest/v1/assets`, { headers: auth() })).status).toBe(422);
    expect((await fetch(`${nexus.url}/service/rest/v1/assets?repository=nope`, { headers: auth() })).status).toBe(404);
    nexus.knobs.refuseCredentials = true;
    expect((await fetch(`${nexus.url}/service/rest/v1/status`, { headers: auth() })).status).toBe(401);
  });

  it('describes hosted, proxy and group repositories; a group lists its members', async () => {
    nexus = await NexusDouble.start();
    nexus.addRepo('rel', 'maven2').addRepo('central', 'maven2', 'proxy').addRepo('public', 'maven2', 'group', { members: ['rel'] }).addRepo('apt', 'apt', 'hosted', { distribution: 'bookworm' });
    nexus.put('rel', 'org/x/1.0/x-1.0.jar', 'jar');
    const repos = (await (await fetch(`${nexus.url}/service/rest/v1/repositories`, { headers: auth() })).json()) as { name: string; type: string; attributes: Record<string, unknown> }[];
    expect(repos.map((r) => [r.name, r.type])).toEqual([['rel', 'hosted'], ['central', 'proxy'], ['public', 'group'], ['apt', 'hosted']]);
    expect(repos[1]!.attributes.proxy).toBeTruthy();
    const settings = (await (await fetch(`${nexus.url}/service/rest/v1/repositorySettings`, { headers: auth() })).json()) as { name: string; apt?: { distribution: string } }[];
    expect(settings.find((s) => s.name === 'apt')!.apt!.distribution).toBe('bookworm');
    const [page] = await pages('public');
    expect(page!.items).toHaveLength(1);
    const item = page!.items[0] as unknown as { downloadUrl: string; checksum: Record<string, string>; maven2: Record<string, string>; lastDownloaded: null };
    expect(item.maven2).toEqual({ groupId: 'org', artifactId: 'x', version: '1.0', extension: 'jar' });
    expect(item.lastDownloaded).toBeNull();
    const body = await fetch(item.downloadUrl, { headers: auth() });
    expect(await body.text()).toBe('jar');
    expect(nexus.downloads('rel', 'org/x/1.0/x-1.0.jar')).toBe(1);
  });

  it('flaps its listing with 5xx, lies about checksums and points downloadUrl elsewhere on request', async () => {
    nexus = await NexusDouble.start();
    nexus.addRepo('r', 'raw').put('r', 'a', 'hello');
    nexus.knobs.flapListing = 2;
    expect((await fetch(`${nexus.url}/service/rest/v1/assets?repository=r`, { headers: auth() })).status).toBe(502);
    expect((await fetch(`${nexus.url}/service/rest/v1/assets?repository=r`, { headers: auth() })).status).toBe(503);
    nexus.knobs.lyingChecksums.add('r/a');
    nexus.knobs.foreignDownloadUrls.add('r/a');
    const [page] = await pages('r');
    const item = page!.items[0] as unknown as { downloadUrl: string; checksum: { sha1: string } };
    expect(item.checksum.sha1).not.toBe('aaf4c61ddcc5e8a2dabede0f3b482cd9aea9434d');
    expect(new URL(item.downloadUrl).origin).not.toBe(nexus.url);
  });
});
