import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Credential } from '../access/credential.js';
import type { GenerationValues } from '../cache/generations.js';
import { FORMAT_SECURITY_HEADERS } from './format-headers.js';
import { isEmbeddingRequest } from './active-content.js';
import type { Core } from '../create-core.js';

interface Answer {
  /** The generations the answer was computed under; it holds only while both stand still. */
  access: number;
  assets: number;
  headers: OutgoingHttpHeaders;
  body: Buffer;
  /** Answered to an anonymous caller: the repository is anonymously readable. */
  anonymous: boolean;
  /** Credentials (the credential cache's own objects) the format already let read this URL. */
  readers: WeakSet<Credential>;
}

/** What a request that missed carries to `recordAnswer`: where to record, and under which generations the app began. */
interface Pending {
  cache: AnswerCache;
  url: string;
  stamp: GenerationValues;
}

const pending = new WeakMap<IncomingMessage, Pending>();
const HOST = /^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/;

export interface AnswerCacheOptions {
  maxEntries?: number;
  /** Bound on the bodies held, in bytes. */
  maxBytes?: number;
}

/**
 * The lean read path (issue 19, docs/decisions.md "Read-path caches"): a full 200 that
 * `serveAsset` sent for a small blob, or `serveBytes` for bytes derived from one (a Maven
 * checksum), with a route's consent (`ServeOptions.answerFromMemory`),
 * is kept with its headers already built; the same GET of the same URL by a caller the format
 * already let read it (anonymous on that repository, or the same cached credential) is then
 * answered from the Node request listener before Hono builds a Request, routes and runs its
 * middleware. Everything that decided the answer stays in force: the access and asset
 * generations must not have moved since the first answer began, the credential must still
 * be in the credential cache (valid, unexpired, unchanged), and any settings change
 * forgets every answer. Requests with Range or conditional headers, HEAD and all
 * others take the app as before. At most `maxEntries` answers and `maxBytes` of bodies.
 */
export class AnswerCache {
  private readonly answers = new Map<string, Answer>();
  private bytes = 0;
  private readonly maxEntries: number;
  private readonly maxBytes: number;

  constructor(
    private readonly ctx: Pick<Core, 'generations' | 'credentials' | 'settings' | 'log'>,
    opts: AnswerCacheOptions = {},
  ) {
    this.maxEntries = opts.maxEntries ?? 4096;
    this.maxBytes = opts.maxBytes ?? 16 * 1024 * 1024;
    const keys = ctx.settings.describe().groups.flatMap((g) => g.settings.map((s) => s.key));
    ctx.settings.watch(keys, () => this.clear());
  }

  /**
   * Answers `req` from memory when it can and says so; otherwise notes the generations as they
   * are before the app looks anything up (so an answer computed meanwhile is never kept past a
   * change) and returns false.
   */
  tryAnswer(req: IncomingMessage, res: ServerResponse): boolean {
    if (req.method !== 'GET') return false;
    const h = req.headers;
    if (h.range !== undefined || h['if-none-match'] !== undefined || h['if-modified-since'] !== undefined || h['if-range'] !== undefined) return false;
    // The fetch adapter refuses a missing or malformed Host with a 400: leave those to it.
    if (h.host === undefined || !HOST.test(h.host)) return false;
    // Refused by the app (format-headers.ts): never answered from memory.
    if (isEmbeddingRequest(h['sec-fetch-dest'], h['sec-fetch-site'])) return false;
    const url = req.url ?? '';
    const stamp = this.ctx.generations.current();
    const a = this.answers.get(url);
    if (a && a.access === stamp.access && a.assets === stamp.assets && this.mayRead(a, req)) {
      res.writeHead(200, a.headers);
      res.end(a.body);
      if (this.ctx.log.isLevelEnabled('debug')) this.ctx.log.debug({ method: 'GET', path: url.split('?')[0], status: 200, ms: 0, from: 'memory' }, 'request');
      return true;
    }
    pending.set(req, { cache: this, url, stamp });
    return false;
  }

  private mayRead(a: Answer, req: IncomingMessage): boolean {
    const authorization = req.headers.authorization;
    if (authorization === undefined) return a.anonymous;
    const cred = this.ctx.credentials.resolver.cached?.(authorization, req.socket);
    return cred !== undefined && a.readers.has(cred);
  }

  /** Keeps a full 200 for the request's URL, unless a generation moved since the request began. */
  record(p: Pending, credential: Credential, headers: OutgoingHttpHeaders, body: Uint8Array): void {
    const now = this.ctx.generations.current();
    if (now.access !== p.stamp.access || now.assets !== p.stamp.assets) return;
    let a = this.answers.get(p.url);
    if (!a || a.access !== now.access || a.assets !== now.assets || a.body.length !== body.length || a.headers.ETag !== headers.ETag) {
      if (a) this.drop(p.url, a);
      // The format route's own security headers were set on the response by its middleware, not by
      // serveAsset: a replayed answer carries them too, or an HTML upload would render on its second GET.
      a = { access: now.access, assets: now.assets, headers: { ...FORMAT_SECURITY_HEADERS, ...headers }, body: ownBytes(body), anonymous: false, readers: new WeakSet() };
      this.answers.set(p.url, a);
      this.bytes += a.body.length;
      this.evict();
    }
    if (credential.type === 'anonymous') a.anonymous = true;
    else a.readers.add(credential);
  }

  clear(): void {
    this.answers.clear();
    this.bytes = 0;
  }

  get size(): number {
    return this.answers.size;
  }

  private drop(url: string, a: Answer): void {
    this.answers.delete(url);
    this.bytes -= a.body.length;
  }

  private evict(): void {
    while (this.answers.size > this.maxEntries || this.bytes > this.maxBytes) {
      const [url, oldest] = this.answers.entries().next().value!;
      this.drop(url, oldest);
    }
  }
}

/**
 * The body as a Buffer without copying, unless it is a view of a larger allocation (a short
 * `Buffer.from(string)` sits in Node's shared 8 KiB pool): kept as a view, a 40-byte checksum would
 * hold the whole slab while `maxBytes` counted 40.
 */
function ownBytes(body: Uint8Array): Buffer {
  return body.byteLength === body.buffer.byteLength ? Buffer.from(body.buffer, body.byteOffset, body.byteLength) : Buffer.from(body);
}

/**
 * Called by `serveAsset` (a small blob) or `serveBytes` as it sends a full 200 from memory with the
 * route's consent: keeps it when the request came through an AnswerCache's `tryAnswer` (a no-op otherwise).
 */
export function recordAnswer(req: IncomingMessage | undefined, credential: Credential | undefined, headers: OutgoingHttpHeaders, body: Uint8Array): void {
  const p = req && pending.get(req);
  if (!p || !credential) return;
  pending.delete(req);
  p.cache.record(p, credential, headers, body);
}
