import { setTimeout as sleep } from 'node:timers/promises';
import type { IncomingMessage } from 'node:http';
import { createHash } from 'node:crypto';
import type { HashAlgorithm, Spool, SpooledFile } from '@trove/blobstore';
import { get, readCapped, readExactly, Watchdog } from './transport.js';
import { NexusError, normalizeBaseUrl, readAssetPage, readRepositorySettings, readRepositoryList, REPO_NAME, type NexusAsset, type NexusCredentials, type NexusRepository, type RepositorySettings, type UnreadableEntry } from './wire.js';

export * from './wire.js';

export interface NexusClientOptions {
  /** Longest wait for response headers, and for the next chunk of a body. */
  timeoutMs?: number;
  /** Attempts after the first for transient failures. */
  retries?: number;
  /** First backoff; doubles per attempt (with jitter), capped at 10 s. */
  backoffMs?: number;
}

/** Downloads up to this size leave their fsync to the commit (see `download`). */
const DEFER_FLUSH_UP_TO = 1024 * 1024;

/** Downloads up to this declared size are read into memory and spooled in one write (see `download`). */
const IN_MEMORY_UP_TO = 64 * 1024;

/** Empty pages in a row, each with a new continuation token, before a listing is taken for endless. */
const MAX_EMPTY_PAGES = 100;

/** The slowest average a download may keep up: past `timeoutMs` + size / this, it is given up (and retried). */
const MIN_BYTES_PER_S = 64 * 1024;

/** The longest delay Node's timers hold (2^31 - 1 ms, about 24.8 days); a longer one fires at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** A JSON answer (a listing page, the repository list) gets this many `timeoutMs` in all. */
const JSON_DEADLINE_FACTOR = 4;

/** A listing answer larger than this is not Nexus talking. */
const MAX_JSON = 32 * 1024 * 1024;

/** `.` or `..`, alone or with a path parameter (`..;x`), as Jetty reads a segment. */
const DOT_SEGMENT = /^\.\.?(;|$)/;

/** A URL path's segments percent-decoded, or null when one of them cannot be, or decodes to a dot segment or a separator. */
function decodedPath(encoded: string): string | null {
  const out: string[] = [];
  for (const seg of encoded.split('/')) {
    let s: string;
    try {
      s = decodeURIComponent(seg);
    } catch {
      return null;
    }
    if (DOT_SEGMENT.test(s) || /[/\\]/.test(s)) return null;
    out.push(s);
  }
  return out.join('/');
}

/**
 * The little of Nexus 3's REST API the mirror needs (see NEXUS-API.md), over node:http with
 * keep-alive (fetch's Request, Response and web streams cost a third more CPU per small download).
 * Every answer from the source is treated as hostile input: JSON is size-capped and
 * schema-checked, download URLs must stay on the source's own base URL, and a listing
 * that fails after its retries is an error, never an empty repository.
 */
export class NexusClient {
  readonly base: URL;
  private readonly auth: string;
  private readonly timeoutMs: number;
  private readonly retries: number;
  private readonly backoffMs: number;

  constructor(creds: NexusCredentials, opts: NexusClientOptions = {}) {
    this.base = new URL(normalizeBaseUrl(creds.baseUrl) + '/');
    this.auth = 'Basic ' + Buffer.from(`${creds.username}:${creds.password}`).toString('base64');
    this.timeoutMs = opts.timeoutMs ?? 30_000;
    this.retries = opts.retries ?? 4;
    this.backoffMs = opts.backoffMs ?? 250;
  }

  /** `GET /service/rest/v1/status` with the credentials: refused logins and unreachable sources become typed errors. */
  async check(signal?: AbortSignal): Promise<void> {
    const res = await this.request('service/rest/v1/status', { signal });
    res.destroy(); // the answer's body says nothing the status did not
  }

  async repositories(signal?: AbortSignal): Promise<NexusRepository[]> {
    const repos = readRepositoryList(await this.json('service/rest/v1/repositories', signal));
    // Distributions and version policies need the admin-only settings listing: when it cannot be read (not an admin,
    // a login page, an odd entry), the repositories are still listed, without what it would have added.
    let settings = new Map<string, RepositorySettings>();
    try {
      settings = readRepositorySettings(await this.json('service/rest/v1/repositorySettings', signal));
    } catch (err) {
      if (signal?.aborted) throw err;
    }
    return repos.map((r) => ({ ...r, ...settings.get(r.name) }));
  }

  /**
   * The asset enumeration, one page at a time. Follows continuation tokens until a page comes
   * without one (an exact multiple of 100 ends with an empty page). Each page is retried on
   * its own; when it still fails the generator throws, so a caller never mistakes a broken
   * listing for the end of the repository.
   */
  async *assets(repository: string, signal?: AbortSignal): AsyncGenerator<{ items: NexusAsset[]; unreadable: UnreadableEntry[] }> {
    let token: string | null | undefined = null;
    const seen = new Set<string>(); // digests of the tokens given: a source can make them long
    let emptyInARow = 0;
    do {
      const q = new URLSearchParams({ repository, ...(token ? { continuationToken: token } : {}) });
      const page = readAssetPage(await this.json(`service/rest/v1/assets?${q}`, signal), repository);
      yield { items: page.items, unreadable: page.unreadable };
      token = page.token;
      // A source that hands back a token it already gave would make us loop forever.
      if (!token) break;
      const digest = createHash('sha256').update(token).digest('base64');
      if (seen.has(digest)) throw new NexusError('invalid', `asset listing of ${repository} repeats a continuation token`);
      seen.add(digest);
      // Nexus ends with at most one empty page; a source that keeps answering empty pages with new tokens never ends.
      emptyInARow = page.items.length === 0 ? emptyInARow + 1 : 0;
      if (emptyInARow > MAX_EMPTY_PAGES) throw new NexusError('invalid', `asset listing of ${repository} gave ${MAX_EMPTY_PAGES} empty pages in a row that each promise more`);
    } while (token);
  }

  /**
   * The URL an asset may be fetched from: its `downloadUrl` only when it lies on the source's own
   * origin and under its content root; anything else is refused (a server-side request forgery path).
   */
  contentUrl(repository: string, asset: NexusAsset): URL {
    // A name like '..' would resolve outside the content root, and the root with it.
    if (!REPO_NAME.test(repository)) throw new NexusError('foreign_url', `${repository.slice(0, 200)} is not a repository name; refused, not fetched`);
    const root = new URL(`repository/${encodeURIComponent(repository)}/`, this.base);
    const inRoot = (url: URL) => url.origin === this.base.origin && url.pathname.startsWith(root.pathname) && !url.username && !url.password;
    // Jetty, Nexus's server, takes `..;x` for `..` with a path parameter: a way into another repository.
    if (asset.path.split('/').some((seg) => DOT_SEGMENT.test(seg))) throw new NexusError('foreign_url', `the path leaves ${root.pathname}; refused, not fetched`);
    if (!asset.downloadUrl) {
      const url = new URL(asset.path.split('/').map(encodeURIComponent).join('/'), root);
      if (!inRoot(url)) throw new NexusError('foreign_url', `the path leaves ${root.pathname}; refused, not fetched`);
      return url;
    }
    let url: URL;
    try {
      url = new URL(asset.downloadUrl);
    } catch {
      throw new NexusError('foreign_url', 'downloadUrl is not a URL');
    }
    if (!inRoot(url)) throw new NexusError('foreign_url', `downloadUrl points outside ${repository} on the source (${url.origin}${url.pathname.slice(0, 200)}); refused, not fetched`);
    // Only the listed file: decoded, the URL must name its path (an encoded `/`, `.` or `;` could name another).
    if (decodedPath(url.pathname.slice(root.pathname.length)) !== asset.path) {
      throw new NexusError('foreign_url', `downloadUrl does not name the listed path ${asset.path.slice(0, 200)}; refused, not fetched`);
    }
    url.hash = '';
    return url;
  }

  /**
   * Streams one asset into the spool, hashing on the way (sha256, sha1 and md5 always,
   * sha512 when the source declared it). A stalled body is aborted after `timeoutMs` of silence.
   */
  async download(repository: string, asset: NexusAsset, spool: Spool, opts: { maxBytes: number; signal?: AbortSignal }): Promise<SpooledFile> {
    const url = this.contentUrl(repository, asset);
    if (asset.fileSize !== null && asset.fileSize > opts.maxBytes) {
      throw new NexusError('too_large', `the source lists ${asset.fileSize} bytes, more than max_upload_bytes (${opts.maxBytes}); not fetched`);
    }
    // md5 always: Nexus declares it for every blob, and Debian's index and Maven's .md5 need it.
    const algorithms: HashAlgorithm[] = ['sha1', 'md5'];
    if (asset.checksum.sha512) algorithms.push('sha512');
    // A small file is not flushed here: its slot at the source is free once the bytes are in, and the commit
    // flushes it (many at a time). A large one is, while the other slots download: its flush is long and the
    // dirty pages it holds meanwhile are many.
    const durable = asset.fileSize === null || asset.fileSize > DEFER_FLUSH_UP_TO;
    return this.withRetries(async () => {
      // A source dripping a byte just inside the stall timeout must not hold a slot for ever: the whole body has a deadline too.
      const totalMs = Math.min(MAX_TIMER_MS, this.timeoutMs + Math.ceil(((asset.fileSize ?? opts.maxBytes) / MIN_BYTES_PER_S) * 1000));
      const { res: body, watch } = await this.fetchOnce(url, opts.signal, totalMs);
      try {
        const announced = body.headers['content-length'];
        if (asset.fileSize !== null && announced !== undefined && Number(announced) !== asset.fileSize) {
          // Not a broken transfer (those are retried): the blob was replaced after it was listed, and trying again gets the same.
          throw new NexusError('changed', `the file changed at the source since it was listed (listed ${asset.fileSize} bytes, now ${Number(announced)}); the next sync fetches it again`);
        }
        if (asset.fileSize !== null && asset.fileSize <= IN_MEMORY_UP_TO) {
          // Most of a Maven or apt repository: held whole (at most IN_MEMORY_UP_TO per download slot) and
          // written with one call, without a stream pipeline per file.
          const chunks = await readExactly(body, asset.fileSize, watch);
          return await spool.receiveBytes(chunks, { maxBytes: opts.maxBytes, algorithms, durable });
        }
        // A declared size is the limit too: a body that runs on past it is not the file that was listed.
        const maxBytes = asset.fileSize !== null ? Math.min(opts.maxBytes, asset.fileSize) : opts.maxBytes;
        return await spool.receive(body, { maxBytes, algorithms, durable, onData: () => watch.arm(), ...(asset.fileSize !== null ? { expectedSize: asset.fileSize } : {}), ...(opts.signal ? { signal: opts.signal } : {}) });
      } catch (err) {
        body.destroy(); // whatever is left of it is not wanted, nor is its connection
        if (opts.signal?.aborted) throw err;
        if (watch.fired) throw new NexusError('timeout', watch.overran ? `download slower than ${MIN_BYTES_PER_S / 1024} KiB/s on average; given up after ${Math.round(totalMs / 1000)} s` : `download stalled for ${this.timeoutMs} ms`);
        if ((err as Error).name === 'UploadTooLargeError' && asset.fileSize !== null && asset.fileSize < opts.maxBytes) {
          throw new NexusError('changed', `the source sent more than the ${asset.fileSize} bytes it listed; the next sync fetches it again`);
        }
        if ((err as Error).name === 'UploadIncompleteError') throw new NexusError('unreachable', 'the download ended early or did not have the size the source declared');
        if ((err as NodeJS.ErrnoException).code === 'ECONNRESET' || (err as Error).message === 'aborted') throw new NexusError('unreachable', 'the connection to the source broke during the download');
        throw err;
      } finally {
        watch.stop();
      }
    }, opts.signal);
  }

  private async json(path: string, signal?: AbortSignal): Promise<unknown> {
    return this.withRetries(async () => {
      const { res, watch } = await this.fetchOnce(new URL(path, this.base), signal, JSON_DEADLINE_FACTOR * this.timeoutMs);
      let text: string;
      try {
        text = await readCapped(res, MAX_JSON, watch);
      } catch (err) {
        if (signal?.aborted || err instanceof NexusError) throw err;
        if (watch.fired) throw new NexusError('timeout', `${path.split('?')[0]} ${watch.overran ? `took longer than ${(JSON_DEADLINE_FACTOR * this.timeoutMs) / 1000} s in all` : `stalled for ${this.timeoutMs} ms`}`);
        // A body cut off (a reset, a proxy's restart): like a failed request, worth another try.
        throw new NexusError('unreachable', `${path.split('?')[0]} broke off mid-answer (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
      } finally {
        watch.stop();
      }
      try {
        return JSON.parse(text) as unknown;
      } catch {
        throw new NexusError('invalid', `${path.split('?')[0]} did not answer JSON`);
      }
    }, signal);
  }

  private async request(path: string, opts: { signal?: AbortSignal | undefined; retries?: number }): Promise<IncomingMessage> {
    return this.withRetries(async () => {
      const { res, watch } = await this.fetchOnce(new URL(path, this.base), opts.signal);
      watch.stop();
      return res;
    }, opts.signal, opts.retries);
  }

  /**
   * One request; headers must arrive within `timeoutMs`, and the returned watchdog aborts the body
   * when a reader re-arms it no more for `timeoutMs`. Anything but 2xx becomes a NexusError.
   */
  private async fetchOnce(url: URL, signal?: AbortSignal, totalMs?: number): Promise<{ res: IncomingMessage; watch: Watchdog }> {
    const watch = new Watchdog(this.timeoutMs, signal, totalMs);
    let res: IncomingMessage;
    try {
      res = await get(url, { Authorization: this.auth, Accept: 'application/json, */*' }, watch);
    } catch (err) {
      watch.stop();
      if (signal?.aborted) throw err;
      if (watch.fired) throw new NexusError('timeout', `no answer from ${url.origin} within ${this.timeoutMs} ms`);
      throw new NexusError('unreachable', `cannot reach ${url.origin}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
    watch.arm();
    const status = res.statusCode ?? 0;
    if (status >= 200 && status < 300) return { res, watch };
    watch.stop();
    res.destroy(); // an error page is not worth reading, nor the socket worth keeping
    if (status === 401) throw new NexusError('refused', 'the source refused the credentials', 401);
    if (status >= 300 && status < 400) throw new NexusError('status', `the source answered a redirect (${status}); redirects are not followed`, status);
    throw new NexusError('status', `the source answered ${status} for ${url.pathname}`, status);
  }

  private async withRetries<T>(fn: () => Promise<T>, signal?: AbortSignal, retries = this.retries): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await fn();
      } catch (err) {
        if (signal?.aborted || !(err instanceof NexusError) || !err.transient || attempt >= retries) throw err;
        const wait = Math.min(10_000, this.backoffMs * 2 ** attempt) * (0.5 + Math.random() / 2);
        await sleep(wait, undefined, signal ? { signal } : {}); // a caller's deadline also ends the wait
      }
    }
  }
}
