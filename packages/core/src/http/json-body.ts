import type { Context } from 'hono';
import { badRequest, payloadTooLarge, troveError } from '../errors.js';
import { askForBody } from './continue.js';
import type { TroveEnv } from './env.js';
import { closeIfStalled } from './stall.js';
import { refuseCodedBody } from './body-codings.js';

/**
 * Reads a small body of at most `limit` bytes into memory (JSON, a checksum). The limit is
 * enforced while reading, so a chunked body without Content-Length cannot make the server
 * buffer more; over it answers 413.
 */
export async function readBody(c: Context<TroveEnv>, limit: number): Promise<Buffer> {
  const declared = Number(c.req.header('content-length') ?? NaN);
  if (declared > limit) throw payloadTooLarge(limit);
  refuseCodedBody(c);
  askForBody(c);
  const body = c.req.raw.body;
  if (!body) return Buffer.alloc(0);
  return closeIfStalled(c, () => readAll(body, limit));
}

async function readAll(body: ReadableStream<Uint8Array>, limit: number): Promise<Buffer> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw payloadTooLarge(limit);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/**
 * Every parsed object gets a null prototype: a body key `__proto__` stays an ordinary own key
 * (reported as unknown, like any other) and copying the object can never reach a prototype.
 */
function withoutPrototype(_key: string, value: unknown): unknown {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
  return Object.assign(Object.create(null), value);
}

/** A JSON body of at most `limit` bytes; `undefined` when empty. */
export async function readJson(c: Context<TroveEnv>, limit: number): Promise<unknown> {
  const bytes = await readBody(c, limit);
  if (bytes.length === 0) return undefined;
  try {
    return JSON.parse(bytes.toString('utf8'), withoutPrototype);
  } catch {
    throw troveError('malformed_json', 'malformed JSON body');
  }
}

/** A JSON object body (empty body = `{}`); anything else is a 400. */
export async function readJsonObject(c: Context<TroveEnv>, limit: number): Promise<Record<string, unknown>> {
  const v = await readJson(c, limit);
  if (v === undefined) return {};
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw badRequest('body must be a JSON object');
  return v as Record<string, unknown>;
}
