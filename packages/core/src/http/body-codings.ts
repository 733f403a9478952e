import type { Context } from 'hono';
import { troveError } from '../errors.js';
import type { TroveEnv } from './env.js';

/**
 * Refuses a body in a coding Trove does not undo. Node undoes `chunked` only: with `gzip` as a
 * transfer coding, or any content coding, the bytes read would be the coded stream, stored and
 * served as if they were the file (RFC 9112 section 6.1: 501 for an unknown transfer coding; RFC
 * 9110 section 15.5.16: 415 for a content coding the server does not accept).
 */
export function refuseCodedBody(c: Context<TroveEnv>): void {
  const te = c.req.header('transfer-encoding');
  if (te && te.split(',').some((t) => t.trim().toLowerCase() !== 'chunked')) {
    throw troveError('not_implemented', `Transfer-Encoding ${te} is not supported; send the body plain or chunked`);
  }
  const ce = c.req.header('content-encoding');
  if (ce && ce.split(',').some((t) => t.trim().toLowerCase() !== 'identity')) {
    throw troveError('unsupported_encoding', `Content-Encoding ${ce} is not accepted; send the body as it is`, {}, { 'Accept-Encoding': 'identity' });
  }
}
