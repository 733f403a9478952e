import type { HashAlgorithm, Spool, SpooledFile } from '@trove/blobstore';
import type { Context } from 'hono';
import { Readable } from 'node:stream';
import { badRequest } from '../errors.js';
import type { TroveEnv } from './env.js';

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
  }
  const incoming = c.env?.incoming;
  const body = incoming ?? (c.req.raw.body ? Readable.fromWeb(c.req.raw.body as any) : Readable.from([]));
  return spool.receive(body, { maxBytes: opts.maxBytes, algorithms: opts.algorithms, expectedSize });
}
