import { UploadIncompleteError, UploadTooLargeError } from '@trove/blobstore';
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { ERROR_CODES, TroveError, type ErrorCode } from '../errors.js';
import type { TroveEnv } from './env.js';

const GENERIC: ErrorCode[] = ['bad_request', 'unauthorized', 'forbidden', 'not_found', 'conflict', 'payload_too_large', 'range_not_satisfiable', 'rate_limited', 'internal', 'bad_gateway', 'unavailable'];

/** The generic code of a status (Hono's HTTPException carries only a status). */
export function codeForStatus(status: number): ErrorCode {
  return GENERIC.find((c) => ERROR_CODES[c] === status) ?? (status >= 500 ? 'internal' : 'bad_request');
}

/**
 * Maps any thrown value to a TroveError; unknown errors become a 500 without internals.
 * A stray SyntaxError is one of those: only `readJson` knows a body was JSON, and says so itself.
 */
export function toTroveError(err: unknown): TroveError {
  if (err instanceof TroveError) return err;
  if (err instanceof UploadTooLargeError) return new TroveError(413, 'payload_too_large', err.message);
  if (err instanceof UploadIncompleteError) return new TroveError(400, 'upload_incomplete', err.message);
  if (err instanceof HTTPException) return new TroveError(err.status, codeForStatus(err.status), err.message || 'request refused');
  // Out of room or file handles is the server's state, not a bug: said as such, and worth retrying.
  const errno = (err as NodeJS.ErrnoException | null)?.code;
  if (errno === 'ENOSPC' || errno === 'EDQUOT') return new TroveError(507, 'insufficient_storage', 'the server has no room left to store this; an operator must free space');
  if (errno === 'EMFILE' || errno === 'ENFILE') return new TroveError(503, 'unavailable', 'the server is out of file handles; try again shortly', {}, { 'Retry-After': '5' });
  return new TroveError(500, 'internal', 'internal error');
}

/** The one place errors become HTTP: `app.onError(errorHandler)`. */
export function errorHandler(err: Error, c: Context<TroveEnv>): Response {
  const e = toTroveError(err);
  const log = c.get('log');
  if (e.status >= 500) log?.error({ err }, 'request failed');
  else log?.debug({ status: e.status, code: e.code }, e.message);
  const headers: Record<string, string> = { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store', ...e.headers };
  // A request whose body we refused may still be streaming in: close the connection rather than read it all.
  if ([400, 413, 415, 501].includes(e.status) && c.env?.incoming && !c.env.incoming.complete) headers.Connection = 'close';
  return new Response(c.req.method === 'HEAD' ? null : JSON.stringify({ error: e.message, code: e.code, ...e.body }), { status: e.status, headers });
}

export function notFoundHandler(c: Context<TroveEnv>): Response {
  return c.json({ error: 'not found', code: 'not_found' }, 404);
}
