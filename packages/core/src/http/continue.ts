import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Context } from 'hono';
import type { TroveEnv } from './env.js';

/** Responses to `Expect: 100-continue` requests whose body has not been asked for yet, with their keep-alive choice. */
const waiting = new WeakMap<ServerResponse, boolean>();

/**
 * Node's 'checkContinue' handler (listen.ts): the request runs at once but `100 Continue` is
 * NOT sent yet, so a PUT that will be refused (401, 403, 404, 409, 413 by Content-Length) is
 * answered before Maven or Gradle send a 2 GiB body. Until the body is asked for, the
 * connection closes after the answer: the client may still send the body it was not asked for.
 */
export function deferContinue(listener: (req: IncomingMessage, res: ServerResponse) => void) {
  return (req: IncomingMessage, res: ServerResponse) => {
    waiting.set(res, res.shouldKeepAlive);
    res.shouldKeepAlive = false;
    listener(req, res);
  };
}

/** Called by every body reader right before it reads: sends the deferred `100 Continue`, once. */
export function askForBody(c: Context<TroveEnv>): void {
  const res = c.env?.outgoing;
  if (!res || !waiting.has(res)) return;
  res.shouldKeepAlive = waiting.get(res)!;
  waiting.delete(res);
  if (!res.headersSent) res.writeContinue();
}
