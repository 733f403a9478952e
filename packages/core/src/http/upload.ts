import type { HashAlgorithm, Spool, SpooledFile } from '@trove/blobstore';
import type { Context } from 'hono';
import { Readable } from 'node:stream';
import { badRequest, payloadTooLarge, TroveError } from '../errors.js';
import { askForBody } from './continue.js';
import type { TroveEnv } from './env.js';
import { closeIfStalled } from './stall.js';
import { refuseCodedBody } from './body-codings.js';

/**
 * Streams a request body into the spool while hashing it, never holding it in memory.
 * Under @hono/node-server the raw Node request is read directly; elsewhere the web
 * body is bridged. Over `maxBytes` fails with UploadTooLargeError (mapped to 413) as
 * soon as the announced length or the bytes read cross it.
 */
export async function receiveUpload(
  c: Context<TroveEnv>,
  spool: Spool,
  opts: { maxBytes: number; algorithms?: HashAlgorithm[] },
): Promise<SpooledFile> {
  const lengthHeader = c.req.header('content-length');
  let expectedSize: number | undefined;
  if (lengthHeader !== undefined) {
    if (!/^\d+$/.test(lengthHeader)) throw badRequest('invalid Content-Length');
    expectedSize = Number(lengthHeader);
    // Refused before the body is asked for (Expect: 100-continue) or read.
    if (expectedSize > opts.maxBytes) throw payloadTooLarge(opts.maxBytes);
  } else if (!/\bchunked\b/i.test(c.req.header('transfer-encoding') ?? '')) {
    // Without either framing Node reads an empty body: an upload would be stored as 0 bytes.
    throw new TroveError(411, 'bad_request', 'an upload needs Content-Length or chunked Transfer-Encoding');
  }
  refuseCodedBody(c);
  askForBody(c);
  const incoming = c.env?.incoming;
  const body = incoming ?? (c.req.raw.body ? Readable.fromWeb(c.req.raw.body as any) : Readable.from([]));
  return closeIfStalled(c, () => spool.receive(body, { maxBytes: opts.maxBytes, algorithms: opts.algorithms, expectedSize }));
}
