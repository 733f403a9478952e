import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A Sonatype Nexus Repository 3 stand-in, written from /work/shared/NEXUS-API.md and served over
 * real HTTP with Basic auth, for the mirror's tests, other packages' tests and the web UI tests.
 * It answers the REST calls the mirror makes (status, repositories, repositorySettings, assets
 * with continuation tokens) and the content root, and has knobs for what goes wrong in the field.
 */

export type NexusFormat = 'maven2' | 'apt' | 'raw' | 'npm' | 'docker';
export type NexusRepoType = 'hosted' | 'proxy' | 'group';

export interface DoubleAssetOptions {
  uploader?: string;
  uploaderIp?: string;
  contentType?: string;
  /** Older blobs carry only sha1 and md5. */
  legacyChecksums?: boolean;
}

interface DoubleAsset extends Required<Omit<DoubleAssetOptions, 'legacyChecksums'>> {
  /** Insertion sequence: the listing's stable, non-alphabetical order and its continuation token. */
  seq: number;
  path: string;
  content: Buffer;
  legacyChecksums: boolean;
  lastModified: string;
  /** Computed once at put: a listing of large files must not rehash them on every page. */
  checksum: Record<string, string>;
}

interface DoubleRepo {
  name: string;
  format: NexusFormat;
  type: NexusRepoType;
  members: string[];
  remoteUrl?: string;
  distribution?: string;
  versionPolicy?: 'RELEASE' | 'SNAPSHOT' | 'MIXED';
  writePolicy?: 'ALLOW' | 'ALLOW_ONCE' | 'DENY';
  assets: Map<string, DoubleAsset>;
}

export interface NexusDoubleOptions {
  username?: string;
  password?: string;
  /** Anonymous access enabled on the source: requests without credentials are served. */
  anonymous?: boolean;
}

export interface NexusKnobs {
  /** Every request answers 401, as Nexus does for a refused login. */
  refuseCredentials: boolean;
  /** `/status` answers 503 and every REST call 503. */
  down: boolean;
  /** The next N asset-listing requests answer a 5xx (502, 503, 500 in turn): a flapping source. */
  flapListing: number;
  /** Every asset-listing request after the first page of a run answers 500 until turned off. */
  breakListingAfterFirstPage: boolean;
  /** How `path` is written: current versions lead with `/`, older ones do not, `mixed` alternates. */
  pathStyle: 'slash' | 'bare' | 'mixed';
  /** Milliseconds each content download waits before its body (the slow source). */
  downloadDelayMs: number;
  /** `repo/path` entries whose declared checksums lie (sha1 and sha256 of other bytes). */
  lyingChecksums: Set<string>;
  /** `repo/path` entries whose `downloadUrl` points at another port (the decoy listener). */
  foreignDownloadUrls: Set<string>;
  /**
   * `repo/path` entries whose download is not the size the listing declares: the number of bytes
   * added (negative: left out), with a matching Content-Length, as a blob changed under the listing.
   */
  wrongSizeDownloads: Map<string, number>;
  /** `repo/path` entries whose download breaks off halfway: the connection is reset after half the body. */
  brokenDownloads: Set<string>;
  /** `repo/path` entries sent in 16 KiB pieces this many milliseconds apart: slow, but never silent for long. */
  trickleMs: Map<string, number>;
  /**
   * `repo/path` entries listed in a shape the mirror cannot read: `field` spoils one field (a
   * negative file size) but keeps the path, `path` spoils the path itself.
   */
  unreadableEntries: Map<string, 'field' | 'path'>;
  /** `repo/path` entries listed twice: first with a spoiled field (as `unreadableEntries`), then as they are. */
  unreadableTwins: Set<string>;
  /** `repo/path` entries listed as they are, and again with a spoiled field on the listing's last page. */
  spoiledLater: Set<string>;
  /** The listing never ends: past the last entry, every page repeats the repository's first entry with a new token. */
  endlessListing: boolean;
  /** REST paths (`/service/rest/v1/...`) answered only after this many milliseconds; Infinity: never answered. */
  slowRest: Map<string, number>;
}

export interface NexusStats {
  /** Content downloads per `repo/path`. */
  downloads: Map<string, number>;
  listingRequests: number;
  /** Requests that reached the decoy listener (must stay 0: the mirror never follows a foreign URL). */
  foreignHits: number;
}

export const PAGE_SIZE = 100;
const REALM = 'Basic realm="Sonatype Nexus Repository Manager"';

function iso(d: Date): string {
  return d.toISOString().replace('Z', '+00:00');
}

function hex(alg: string, data: Buffer | string): string {
  return createHash(alg).update(data).digest('hex');
}

function checksums(bytes: Buffer, legacy: boolean): Record<string, string> {
  const out: Record<string, string> = { sha1: hex('sha1', bytes), md5: hex('md5', bytes) };
  if (!legacy) {
    out.sha256 = hex('sha256', bytes);
    out.sha512 = hex('sha512', bytes);
  }
  return out;
}

export class NexusDouble {
  readonly knobs: NexusKnobs = {
    refuseCredentials: false,
    down: false,
    flapListing: 0,
    breakListingAfterFirstPage: false,
    pathStyle: 'slash',
    downloadDelayMs: 0,
    lyingChecksums: new Set(),
    foreignDownloadUrls: new Set(),
    wrongSizeDownloads: new Map(),
    brokenDownloads: new Set(),
    trickleMs: new Map(),
    unreadableEntries: new Map(),
    unreadableTwins: new Set(),
    spoiledLater: new Set(),
    endlessListing: false,
    slowRest: new Map(),
  };
  readonly stats: NexusStats = { downloads: new Map(), listingRequests: 0, foreignHits: 0 };
  private readonly repos = new Map<string, DoubleRepo>();
  /** Each repository's content in listing order, made once per change: sorting it per page made a 100,000-file listing quadratic. */
  private readonly listingOrder = new Map<DoubleRepo, { repo: DoubleRepo; asset: DoubleAsset }[]>();
  private seq = 0;
  private flapTurn = 0;
  private endlessTurn = 0;
  private port = 0;
  private decoyPort = 0;

  private constructor(
    private readonly server: Server,
    private readonly decoy: Server,
    readonly username: string,
    readonly password: string,
    private readonly anonymous: boolean,
  ) {}

  static async start(opts: NexusDoubleOptions = {}): Promise<NexusDouble> {
    let self: NexusDouble | undefined;
    const server = createServer((req, res) => void self!.handle(req, res));
    const decoy = createServer((req, res) => {
      self!.stats.foreignHits++;
      res.writeHead(200, { 'Content-Type': 'application/octet-stream' }).end('decoy');
    });
    self = new NexusDouble(server, decoy, opts.username ?? 'admin', opts.password ?? 'admin123', opts.anonymous ?? false);
    const listenOn = (s: Server) => new Promise<number>((r) => s.listen(0, '127.0.0.1', () => r((s.address() as AddressInfo).port)));
    self.port = await listenOn(server);
    self.decoyPort = await listenOn(decoy);
    return self;
  }

  /** The source's base URL, as an admin types it into Trove. */
  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async close(): Promise<void> {
    for (const s of [this.server, this.decoy]) {
      const closed = new Promise<void>((r) => s.close(() => r()));
      s.closeAllConnections();
      await closed;
    }
  }

  addRepo(name: string, format: NexusFormat, type: NexusRepoType = 'hosted', extra: { members?: string[]; remoteUrl?: string; distribution?: string; versionPolicy?: 'RELEASE' | 'SNAPSHOT' | 'MIXED'; writePolicy?: 'ALLOW' | 'ALLOW_ONCE' | 'DENY' } = {}): this {
    this.listingOrder.clear();
    this.repos.set(name, { name, format, type, members: extra.members ?? [], ...(extra.remoteUrl ? { remoteUrl: extra.remoteUrl } : {}), ...(extra.distribution ? { distribution: extra.distribution } : {}), ...(extra.versionPolicy ? { versionPolicy: extra.versionPolicy } : {}), ...(extra.writePolicy ? { writePolicy: extra.writePolicy } : {}), assets: new Map() });
    return this;
  }

  /** Adds or replaces an asset (a replaced one moves to the end of the listing order, as a new blob would). */
  put(repo: string, path: string, content: Buffer | string, opts: DoubleAssetOptions = {}): this {
    const r = this.requireRepo(repo);
    const clean = path.replace(/^\/+/, '');
    this.listingOrder.clear(); // groups list their members' content too
    r.assets.delete(clean);
    r.assets.set(clean, {
      seq: ++this.seq,
      path: clean,
      content: Buffer.isBuffer(content) ? content : Buffer.from(content),
      uploader: opts.uploader ?? 'deployer',
      uploaderIp: opts.uploaderIp ?? '10.0.0.7',
      contentType: opts.contentType ?? 'application/octet-stream',
      legacyChecksums: opts.legacyChecksums ?? false,
      lastModified: iso(new Date()),
      checksum: checksums(Buffer.isBuffer(content) ? content : Buffer.from(content), opts.legacyChecksums ?? false),
    });
    return this;
  }

  remove(repo: string, path: string): boolean {
    this.listingOrder.clear();
    return this.requireRepo(repo).assets.delete(path.replace(/^\/+/, ''));
  }

  paths(repo: string): string[] {
    return [...this.requireRepo(repo).assets.keys()];
  }

  downloads(repo: string, path: string): number {
    return this.stats.downloads.get(`${repo}/${path}`) ?? 0;
  }

  totalDownloads(): number {
    let n = 0;
    for (const v of this.stats.downloads.values()) n += v;
    return n;
  }

  private requireRepo(name: string): DoubleRepo {
    const r = this.repos.get(name);
    if (!r) throw new Error(`no repository ${name} in the double`);
    return r;
  }

  private authorized(req: IncomingMessage): boolean {
    if (this.knobs.refuseCredentials) return false;
    const h = req.headers.authorization;
    if (!h) return this.anonymous;
    const m = /^Basic\s+(.+)$/i.exec(h);
    if (!m) return false;
    const [user, ...rest] = Buffer.from(m[1]!, 'base64').toString('utf8').split(':');
    return user === this.username && rest.join(':') === this.password;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.url);
    const json = (status: number, body: unknown) => res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
    if (!this.authorized(req)) {
      res.writeHead(401, { 'WWW-Authenticate': REALM, 'Content-Type': 'text/html' }).end('<html>Unauthorized</html>');
      return;
    }
    const p = url.pathname;
    const slow = this.knobs.slowRest.get(p);
    if (slow === Infinity) return; // held open: a source that stopped answering
    if (slow !== undefined) await new Promise((r) => setTimeout(r, slow));
    if (p.startsWith('/service/rest/v1/') && this.knobs.down) return void json(503, { message: 'unavailable' });
    if (p === '/service/rest/v1/status') return void res.writeHead(200).end();
    if (p === '/service/rest/v1/repositories') return void json(200, [...this.repos.values()].map((r) => this.repoJson(r)));
    if (p.startsWith('/service/rest/v1/repositories/')) {
      const r = this.repos.get(decodeURIComponent(p.slice('/service/rest/v1/repositories/'.length)));
      return void (r ? json(200, this.repoJson(r)) : json(404, { message: 'not found' }));
    }
    if (p === '/service/rest/v1/repositorySettings') return void json(200, [...this.repos.values()].map((r) => this.settingsJson(r)));
    if (p === '/service/rest/v1/assets') return this.listAssets(url, res, json);
    if (p.startsWith('/repository/')) return this.content(req, p, res);
    json(404, { message: 'not found' });
  }

  private repoJson(r: DoubleRepo) {
    const attributes: Record<string, unknown> = {};
    if (r.type === 'proxy') attributes.proxy = { remoteUrl: r.remoteUrl ?? 'https://repo1.maven.org/maven2/' };
    return { name: r.name, format: r.format, type: r.type, url: `${this.url}/repository/${r.name}`, attributes };
  }

  private settingsJson(r: DoubleRepo) {
    const base = {
      name: r.name,
      format: r.format,
      type: r.type,
      url: `${this.url}/repository/${r.name}`,
      online: true,
      ...(r.type === 'hosted' ? { storage: { blobStoreName: 'default', strictContentTypeValidation: true, writePolicy: r.writePolicy ?? 'ALLOW_ONCE' } } : {}),
    };
    if (r.format === 'apt') return { ...base, apt: { distribution: r.distribution ?? 'bionic' } };
    if (r.format === 'maven2') return { ...base, maven: { versionPolicy: r.versionPolicy ?? 'MIXED', layoutPolicy: 'STRICT' } };
    return base;
  }

  /** The asset a content URL names, in the repository or (a group) its first member holding it: one map lookup per download. */
  private lookup(r: DoubleRepo, path: string): { repo: DoubleRepo; asset: DoubleAsset } | undefined {
    if (r.type !== 'group') {
      const asset = r.assets.get(path);
      return asset && { repo: r, asset };
    }
    for (const m of r.members) {
      const member = this.repos.get(m);
      const found = member && this.lookup(member, path);
      if (found) return found;
    }
    return undefined;
  }

  /** A group's listing is its members' content. */
  private contentOf(r: DoubleRepo): { repo: DoubleRepo; asset: DoubleAsset }[] {
    if (r.type === 'group') return r.members.flatMap((m) => (this.repos.get(m) ? this.contentOf(this.repos.get(m)!) : []));
    return [...r.assets.values()].map((asset) => ({ repo: r, asset }));
  }

  private listAssets(url: URL, res: ServerResponse, json: (s: number, b: unknown) => void): void {
    this.stats.listingRequests++;
    const name = url.searchParams.get('repository');
    if (!name) return json(422, { message: 'repository is required' });
    const repo = this.repos.get(name);
    if (!repo) return json(404, { message: `Repository not found` });
    const token = url.searchParams.get('continuationToken');
    if (this.knobs.flapListing > 0) {
      this.knobs.flapListing--;
      const status = [502, 503, 500][this.flapTurn++ % 3]!;
      return void res.writeHead(status, { 'Content-Type': 'text/html' }).end('<html>upstream trouble</html>');
    }
    if (this.knobs.breakListingAfterFirstPage && token) return json(500, { message: 'internal error' });
    let after = 0;
    if (token) {
      after = Number.parseInt(Buffer.from(token, 'hex').toString('utf8'), 36);
      if (!Number.isInteger(after)) return json(400, { message: 'bad continuation token' });
    }
    // Stable, insertion (not alphabetical) order; the token is the last sequence seen, so assets added
    // meanwhile appear later in the same run and deleted ones simply vanish.
    let all = this.listingOrder.get(repo);
    if (!all) this.listingOrder.set(repo, (all = this.contentOf(repo).sort((a, b) => a.asset.seq - b.asset.seq)));
    let from = 0; // the first entry past the token, by binary search
    for (let to = all.length; from < to; ) {
      const mid = (from + to) >>> 1;
      if (all[mid]!.asset.seq > after) to = mid;
      else from = mid + 1;
    }
    const page = all.slice(from, from + PAGE_SIZE);
    const last = page[page.length - 1];
    if (this.knobs.endlessListing && page.length < PAGE_SIZE && all.length) {
      const turn = (this.endlessTurn++).toString(36);
      return json(200, { items: [...page, all[0]!].map((e, i) => this.assetJson(e.repo, e.asset, i)), continuationToken: Buffer.from(`${after.toString(36)}~${turn}`).toString('hex') });
    }
    // A full page always carries a token, so an exact multiple of 100 ends with an empty page.
    const next = page.length === PAGE_SIZE && last ? Buffer.from(last.asset.seq.toString(36)).toString('hex') : null;
    const entries = page.flatMap((e, i) => {
      const one = this.assetJson(e.repo, e.asset, i);
      return this.knobs.unreadableTwins.has(`${e.repo.name}/${e.asset.path}`) ? [{ ...one, fileSize: -1 }, one] : [one];
    });
    if (!next) for (const e of all.filter((x) => this.knobs.spoiledLater.has(`${x.repo.name}/${x.asset.path}`))) entries.push({ ...this.assetJson(e.repo, e.asset, 0), fileSize: -1 });
    json(200, { items: entries, continuationToken: next });
  }

  private assetJson(repo: DoubleRepo, a: DoubleAsset, i: number) {
    const key = `${repo.name}/${a.path}`;
    const lie = this.knobs.lyingChecksums.has(key);
    const checksum = lie ? checksums(Buffer.concat([a.content, Buffer.from('tampered')]), a.legacyChecksums) : a.checksum;
    const slash = this.knobs.pathStyle === 'slash' || (this.knobs.pathStyle === 'mixed' && i % 2 === 0);
    const host = this.knobs.foreignDownloadUrls.has(key) ? `http://127.0.0.1:${this.decoyPort}` : this.url;
    const formatKey: Record<string, unknown> = {};
    if (repo.format === 'maven2') {
      const parts = a.path.split('/');
      formatKey.maven2 = parts.length >= 4 ? { groupId: parts.slice(0, -3).join('.'), artifactId: parts[parts.length - 3], version: parts[parts.length - 2], extension: a.path.split('.').pop() } : {};
    } else formatKey[repo.format] = {};
    const unreadable = this.knobs.unreadableEntries.get(key);
    return {
      downloadUrl: `${host}/repository/${repo.name}/${a.path.split('/').map(encodeURIComponent).join('/')}`,
      path: unreadable === 'path' ? 42 : slash ? `/${a.path}` : a.path,
      id: Buffer.from(`${repo.name}:${a.seq}`).toString('base64url'),
      repository: repo.name,
      format: repo.format,
      checksum,
      contentType: a.contentType,
      lastModified: a.lastModified,
      lastDownloaded: null,
      uploader: a.uploader,
      uploaderIp: a.uploaderIp,
      fileSize: unreadable === 'field' ? -1 : a.content.length,
      blobCreated: a.lastModified,
      blobStoreName: null,
      ...formatKey,
    };
  }

  private async content(req: IncomingMessage, pathname: string, res: ServerResponse): Promise<void> {
    const rest = pathname.slice('/repository/'.length);
    const slash = rest.indexOf('/');
    const repo = this.repos.get(decodeURIComponent(slash < 0 ? rest : rest.slice(0, slash)));
    const path = slash < 0 ? '' : rest.slice(slash + 1).split('/').map(decodeURIComponent).join('/');
    const found = repo && this.lookup(repo, path);
    if (!found) return void res.writeHead(404, { 'Content-Type': 'text/html' }).end('<html>Not Found</html>');
    const { asset } = found;
    const key = `${found.repo.name}/${asset.path}`;
    if (req.method === 'GET') this.stats.downloads.set(key, (this.stats.downloads.get(key) ?? 0) + 1);
    const delta = this.knobs.wrongSizeDownloads.get(key) ?? 0;
    const body = delta === 0 ? asset.content : delta < 0 ? asset.content.subarray(0, asset.content.length + delta) : Buffer.concat([asset.content, Buffer.alloc(delta, 0x2a)]);
    // The listing says what was stored; the download's header is what HTTP can carry.
    const type = /^[\t\x20-\x7e]*$/.test(asset.contentType) ? asset.contentType : 'application/octet-stream';
    res.writeHead(200, { 'Content-Type': type, 'Content-Length': body.length, 'Last-Modified': new Date(asset.lastModified).toUTCString() });
    if (req.method === 'HEAD') return void res.end();
    if (this.knobs.downloadDelayMs > 0) {
      // Headers first, then a pause: a slow body, which is what a loaded Nexus looks like.
      res.flushHeaders();
      await new Promise((r) => setTimeout(r, this.knobs.downloadDelayMs));
      if (res.destroyed) return;
    }
    const pause = this.knobs.trickleMs.get(key);
    if (pause !== undefined) {
      for (let at = 0; at < body.length && !res.destroyed; at += 16 * 1024) {
        res.write(body.subarray(at, at + 16 * 1024));
        await new Promise((r) => setTimeout(r, pause));
      }
      return void res.end();
    }
    if (this.knobs.brokenDownloads.has(key)) {
      res.write(body.subarray(0, body.length >> 1), () => res.socket?.resetAndDestroy());
      return;
    }
    res.end(body);
  }
}
