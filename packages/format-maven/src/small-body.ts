import type { Context } from 'hono';
import { Readable } from 'node:stream';
import { payloadTooLarge, type TroveEnv } from '@trove/core';

/**
 * Reads a body known to be tiny (a checksum) into memory, refusing more than `max` bytes
 * with 413. Cheaper than the spool, which fsyncs: the server stores the checksum it
 * derives from the body, never the body itself.
 */
export async function readSmallBody(c: Context<TroveEnv>, max: number): Promise<Buffer> {
  const length = Number(c.req.header('content-length') ?? NaN);
  if (length > max) throw payloadTooLarge(max);
  const body: Readable = c.env?.incoming ?? (c.req.raw.body ? Readable.fromWeb(c.req.raw.body as any) : Readable.from([]));
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    if (size > max) {
      body.destroy();
      throw payloadTooLarge(max);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}
