import type { BlobReader, BlobStore, ByteRange } from '@trove/blobstore';
import type { Context } from 'hono';
import type { ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { AssetRow } from '../db/schema.js';
import type { SettingsRegistry } from '../settings/registry.js';
import { notFound, TroveError } from '../errors.js';
import { recordAnswer } from './answer-cache.js';
import type { TroveEnv } from './env.js';
import { contentHeaders } from './active-content.js';
import { closeIfStalled } from './stall.js';

/**
 * @hono/node-server's marker for "the handler wrote the Node response itself".
 * Writing directly lets a download use `pipeline(blob, res)` with Node's own
 * backpressure instead of a web-stream bridge (see docs/performance.md).
 */
const ALREADY_SENT = () => new Response(null, { headers: { 'x-hono-already-sent': 'true' } });

export interface ServeOptions {
  /** On S3 with `s3.redirect` on: answer GET with 302 to a presigned URL. HEAD is never redirected. */
  redirect?: { ttlSeconds: number } | false;
  /** Shorter cache lifetime for mutable files (metadata, indexes). */
  cacheControl?: string;
  /** Suggested file name for presigned downloads. */
  filename?: string;
  /**
   * The route's consent to the lean read path (answer-cache.ts): its answer for this URL depends
   * only on the caller's access to the repository and on asset and repository rows, so a full 200
   * for a small blob may be repeated from memory to the same caller until one of those changes.
   */
  answerFromMemory?: boolean;
}

/**
 * The `redirect` option every format passes, read from the live settings (`s3.redirect`,
 * `presign_ttl`); serveAsset ignores it on a store that cannot presign (fs).
 */
export function redirectOption(settings: Pick<SettingsRegistry, 'bool' | 'ms'>): ServeOptions['redirect'] {
  return settings.bool('s3.redirect') ? { ttlSeconds: Math.round(settings.ms('presign_ttl') / 1000) } : false;
}

/** Parses a single `bytes=` range against `size`. null: serve whole; 'unsatisfiable': 416. */
export function parseRange(header: string | undefined, size: number): ByteRange | null | 'unsatisfiable' {
  if (!header) return null;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return null; // multi-range or malformed: a full 200 is a valid answer
  if (m[1] === '') {
    const n = Number(m[2]);
    if (n === 0 || size === 0) return 'unsatisfiable'; // no last bytes of nothing
    return { start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (start >= size || start > end) return 'unsatisfiable';
  return { start, end };
}

/** Conditional GET (If-None-Match, else If-Modified-Since) against a validator the caller computed. */
export function notModified(c: Context<TroveEnv>, etag: string, lastModified: Date): boolean {
  const inm = c.req.header('if-none-match');
  if (inm !== undefined) return inm.split(',').some((t) => t.trim() === etag || t.trim() === '*' || t.trim() === `W/${etag}`);
  const ims = c.req.header('if-modified-since');
  if (ims) {
    const t = Date.parse(ims);
    return !Number.isNaN(t) && Math.floor(lastModified.getTime() / 1000) <= Math.floor(t / 1000);
  }
  return false;
}

/** What a conditional, ranged answer is computed from: the validators and the bytes' size and type. */
export interface Representation {
  etag: string;
  lastModified: Date;
  size: number;
  contentType: string;
  cacheControl: string;
  /** Name for `Content-Disposition` when the type is active content (active-content.ts). */
  filename?: string;
}

/** A 200 or 206 about to be sent: its status, headers and the bytes it carries (null: none, or HEAD). */
interface Plan {
  status: 200 | 206;
  headers: Record<string, string>;
  span: ByteRange | null;
  head: boolean;
}

/**
 * The HTTP rules every download follows, in one place: ETag and Last-Modified, a 304 for a
 * conditional request, a single byte range (If-Range honoured) or 416, Content-Length and
 * Content-Range. Answers the 304 itself; throws the 416.
 */
function plan(c: Context<TroveEnv>, rep: Representation): Plan | Response {
  const headers: Record<string, string> = {
    ETag: rep.etag,
    'Last-Modified': rep.lastModified.toUTCString(),
    'Accept-Ranges': 'bytes',
    'Cache-Control': rep.cacheControl,
    'X-Content-Type-Options': 'nosniff',
  };
  if (notModified(c, rep.etag, rep.lastModified)) return new Response(null, { status: 304, headers });
  let range: ByteRange | null = null;
  const ifRange = c.req.header('if-range');
  if (!ifRange || ifRange === rep.etag) {
    const r = parseRange(c.req.header('range'), rep.size);
    if (r === 'unsatisfiable') throw new TroveError(416, 'range_not_satisfiable', 'range not satisfiable', {}, { 'Content-Range': `bytes */${rep.size}` });
    range = r;
  }
  Object.assign(headers, contentHeaders(rep.contentType, rep.filename));
  headers['Content-Length'] = String(range ? range.end - range.start + 1 : rep.size);
  if (range) headers['Content-Range'] = `bytes ${range.start}-${range.end}/${rep.size}`;
  // Always bounded: a blob read that knows its end never allocates more than the file needs.
  const span = range ?? (rep.size > 0 ? { start: 0, end: rep.size - 1 } : null);
  return { status: range ? 206 : 200, headers, span, head: c.req.method === 'HEAD' };
}

/** Sends bytes already in memory (or none): straight to the Node response when there is one. */
function send(c: Context<TroveEnv>, p: Plan, bytes?: Uint8Array): Response {
  const body = bytes && p.span ? bytes.subarray(p.span.start, p.span.end + 1) : undefined;
  const out = c.env?.outgoing;
  if (!out) return new Response(p.head || !body ? null : new Uint8Array(body), { status: p.status, headers: p.headers });
  out.writeHead(p.status, p.headers);
  out.end(p.head ? undefined : body);
  return ALREADY_SENT();
}

/**
 * Answers GET or HEAD for bytes a format holds outside the blob store (generated index files,
 * checksums derived from a stored file), under the same rules as `serveAsset`. `body` is called
 * only when a body is sent, at once. `answerFromMemory` means what it means for `serveAsset`, and
 * fits only bytes computed from asset and repository rows (not a format's own tables).
 */
export function serveBytes(c: Context<TroveEnv>, rep: Representation, body: () => Uint8Array, opts: Pick<ServeOptions, 'answerFromMemory'> = {}): Response {
  const p = plan(c, rep);
  if (p instanceof Response) return p;
  if (p.head) return send(c, p);
  const bytes = body();
  if (opts.answerFromMemory && p.status === 200 && c.env?.outgoing) recordAnswer(c.env.incoming, c.get('credential'), p.headers, bytes);
  return send(c, p, bytes);
}

/**
 * Answers GET or HEAD for an asset: ETag (the sha256), Last-Modified, conditional
 * requests, a single byte range, and the body from the blob store (a small one from memory).
 */
export async function serveAsset(c: Context<TroveEnv>, blobs: BlobStore, asset: AssetRow, opts: ServeOptions = {}): Promise<Response> {
  const p = plan(c, {
    etag: `"${asset.sha256}"`,
    lastModified: asset.updatedAt,
    size: asset.size,
    contentType: asset.contentType,
    cacheControl: opts.cacheControl ?? 'private, max-age=0, must-revalidate',
    filename: opts.filename ?? asset.path.split('/').pop(),
  });
  if (p instanceof Response) return p;
  if (p.head) return send(c, p);
  // Every GET download redirects where the setting says so (SPEC, `s3.redirect`), small ones too.
  if (opts.redirect && blobs.presignGet) {
    const url = await blobs.presignGet(asset.blobKey, { expiresInSeconds: opts.redirect.ttlSeconds, filename: opts.filename, contentType: asset.contentType });
    return new Response(null, { status: 302, headers: { Location: url, 'Cache-Control': 'no-store' } });
  }
  if (asset.size <= blobs.smallBlobLimit) {
    const bytes = await blobs.readSmall(asset.blobKey, asset.size);
    if (!bytes) throw notFound('file content is missing from the blob store');
    if (opts.answerFromMemory && p.status === 200 && c.env?.outgoing) recordAnswer(c.env.incoming, c.get('credential'), p.headers, bytes);
    return send(c, p, bytes);
  }
  const { status, headers, span } = p;
  const out = c.env?.outgoing;
  if (out && span) {
    const reader = await blobs.openReader(asset.blobKey);
    if (reader) {
      try {
        // A client that stops reading would hold the socket and the blob's file handle for good.
        await closeIfStalled(c, () => sendFromReader(reader, out, status, headers, span));
      } catch (err) {
        if (!out.headersSent) throw err; // nothing sent yet: an ordinary 500
        c.get('log')?.error({ err, blob: asset.blobKey }, 'download cut short');
        out.destroy(); // the client sees a truncated body, never a wrong one
      }
      return ALREADY_SENT();
    }
  }
  const stream = await blobs.get(asset.blobKey, span ? { range: span } : undefined);
  if (!stream) throw notFound('file content is missing from the blob store');
  if (out) {
    out.writeHead(status, headers);
    // A client that goes away mid-download ends the pipeline with an error; nothing to answer then.
    await closeIfStalled(c, () => pipeline(stream, out)).catch(() => stream.destroy());
    return ALREADY_SENT();
  }
  return new Response(Readable.toWeb(stream) as ReadableStream, { status, headers });
}

/** Largest read: big enough for few syscalls, small enough that a slow client holds 512 KiB at most. */
const CHUNK = 256 * 1024;

/**
 * Sends `span` of a blob through two buffers of min(CHUNK, length) used in turn: a buffer is read
 * into again only after the socket has taken its previous bytes (its write callback). A stream
 * allocates a fresh buffer per chunk instead, and in one server process in three or four that
 * churn kept V8's marking threads busy for good, halving big-download throughput (bench W3).
 * A file that fits one buffer goes out with the headers in one `end()`. The reader is closed
 * on every path; a client that leaves mid-way just ends the loop; a failed or short read throws.
 */
async function sendFromReader(reader: BlobReader, out: ServerResponse, status: number, headers: Record<string, string>, span: ByteRange): Promise<void> {
  const size = Math.min(CHUNK, span.end - span.start + 1);
  const bufs = [Buffer.allocUnsafe(size)];
  const written: (Promise<unknown> | undefined)[] = [];
  let gone = false;
  let left: Promise<void> | undefined; // settles when the response closes: the client left (or it is done)
  try {
    for (let pos = span.start, i = 0; pos <= span.end; i ^= 1) {
      if (written[i]) {
        await Promise.race([written[i], left]);
        if (gone || out.destroyed) return;
      }
      const buf = (bufs[i] ??= Buffer.allocUnsafe(size));
      const want = Math.min(size, span.end - pos + 1);
      const n = await readFully(reader, buf, want, pos);
      // The blob is shorter than its asset row says: never send a file other than the one promised.
      if (n < want) throw new Error(`blob ends at ${pos + n}, before the ${span.end + 1} bytes its asset promises`);
      if (gone || out.destroyed) return;
      pos += n;
      if (!out.headersSent) out.writeHead(status, headers);
      if (pos > span.end) {
        out.end(n === buf.length ? buf : buf.subarray(0, n));
        return;
      }
      left ??= new Promise<void>((resolve) =>
        out.once('close', () => {
          gone = true;
          resolve();
        }),
      );
      // The callback fires once the socket took the bytes, or with an error once it is gone: never rejects.
      written[i] = new Promise((resolve) => out.write(buf, resolve));
    }
  } finally {
    reader.close();
  }
}

/** Reads exactly `length` bytes unless the blob ends first; answers how many it got. */
async function readFully(reader: BlobReader, into: Buffer, length: number, position: number): Promise<number> {
  let got = 0;
  while (got < length) {
    const n = await reader.read(got === 0 ? into : into.subarray(got), length - got, position + got);
    if (n === 0) break;
    got += n;
  }
  return got;
}
