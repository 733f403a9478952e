import { getRequestListener } from '@hono/node-server';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Hono } from 'hono';
import type { AnswerCache } from './answer-cache.js';
import { jsonClientErrors } from './client-error.js';
import { deferContinue } from './continue.js';
import type { TroveEnv } from './env.js';
import { setStallTimeout } from './stall.js';

const jsonError = (status: number, error: string) =>
  new Response(JSON.stringify({ error }), { status, headers: { 'Content-Type': 'application/json; charset=utf-8', Connection: 'close' } });

/** An `Expect` other than 100-continue: 417 as Node would, but with the JSON body every refusal has. */
function refuseExpectation(req: IncomingMessage, res: ServerResponse): void {
  const body = JSON.stringify({ error: 'unsupported Expect header: only 100-continue is understood' });
  res.writeHead(417, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body), Connection: 'close' });
  res.end(body);
  req.resume();
}

/**
 * Starts a Node HTTP server for the app. Requests the adapter cannot turn into a
 * Request (a backslash in the path, a bad Host) and requests Node's parser refuses
 * both get a JSON `{"error"}` 400 like every other bad input.
 */
export function listen(app: Hono<TroveEnv>, opts: { host?: string; port: number; answers?: AnswerCache; stallTimeoutMs?: number }): Promise<Server> {
  if (opts.stallTimeoutMs !== undefined) setStallTimeout(opts.stallTimeoutMs);
  const listener = getRequestListener(app.fetch, {
    errorHandler: (err) => (err instanceof Error && err.name === 'RequestError' ? jsonError(400, `malformed request: ${err.message}`) : jsonError(500, 'internal error')),
  });
  const answers = opts.answers;
  // A repeated small GET is answered from memory before the fetch adapter and Hono run (answer-cache.ts).
  // Without Host the fetch adapter refuses the request itself, so the errorHandler above gives
  // it the JSON 400 Node's own check (a bare 400) would not.
  const server = createServer({ requireHostHeader: false }, answers ? (req, res) => void (answers.tryAnswer(req, res) || listener(req, res)) : listener);
  // `Expect: 100-continue`: decide the answer first; body readers send 100 Continue (continue.ts).
  server.on('checkContinue', deferContinue(listener));
  server.on('checkExpectation', refuseExpectation);
  jsonClientErrors(server);
  // Long uploads and slow downloads are normal for an artifact server: no overall request timeout.
  server.requestTimeout = 0;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}
