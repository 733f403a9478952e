import http, { type ClientRequest, type IncomingMessage } from 'node:http';
import https from 'node:https';
import { NexusError } from './wire.js';

/** The mirror's HTTP underneath: keep-alive GETs, and a watchdog for silence and slowness. */

/**
 * Aborts a request when nothing arrived for `ms` (headers first, then each chunk re-arms it), when
 * the whole request passed `totalMs`, or when the caller's signal aborts, by destroying the request
 * it watches. No AbortController or signal is made per request: with node:http's signal plumbing
 * they were about 3% of a small file's import CPU (a --cpu-prof of bench/mirror-import.mjs). The
 * caller's signal is a sync's, alive for its whole run: it is followed with a listener that `stop()`
 * removes, not `AbortSignal.any`, which on Node 20 keeps about 70 bytes per combined signal on its
 * source until that source is collected (70 MB over a sync of a million files).
 */
export class Watchdog {
  private timer: NodeJS.Timeout | undefined;
  private readonly deadline: NodeJS.Timeout | undefined;
  private timedOut = false;
  /** True when the whole request ran past `totalMs`, however steadily it trickled. */
  overran = false;
  /** Why the request is to end, once it is; a request attached after that is destroyed at once. */
  private reason: Error | undefined;
  private request: ClientRequest | undefined;
  private readonly follow: (() => void) | undefined;
  constructor(
    private readonly ms: number,
    private readonly caller?: AbortSignal,
    totalMs?: number,
  ) {
    if (caller?.aborted) this.abort(caller.reason);
    else if (caller) caller.addEventListener('abort', (this.follow = () => this.abort(caller.reason)), { once: true });
    if (totalMs !== undefined)
      this.deadline = setTimeout(() => {
        this.timedOut = this.overran = true;
        this.abort();
      }, totalMs);
    this.arm();
  }
  /** The request to end when the watch fires. */
  attach(request: ClientRequest): void {
    this.request = request;
    if (this.reason) request.destroy(this.reason);
  }
  /** True when the silence ran out (not when the caller aborted). */
  get fired(): boolean {
    return this.timedOut;
  }
  /** Restarts the wait; called per chunk, so it moves the one timer rather than making a new one. */
  arm(): void {
    if (this.timer) this.timer.refresh();
    else
      this.timer = setTimeout(() => {
        this.timedOut = true;
        this.abort();
      }, this.ms);
  }
  stop(): void {
    clearTimeout(this.timer);
    clearTimeout(this.deadline);
    this.timer = undefined;
    if (this.follow) this.caller!.removeEventListener('abort', this.follow);
  }
  private abort(reason?: unknown): void {
    this.reason ??= reason instanceof Error ? reason : new Error('aborted');
    this.request?.destroy(this.reason);
  }
}

/**
 * The body of a download whose size the source declared, as chunks: a body longer or shorter
 * than declared is an incomplete download (retried), never a file of another size.
 */
export async function readExactly(body: IncomingMessage, size: number, watch: Watchdog): Promise<Uint8Array[]> {
  const chunks: Buffer[] = [];
  let got = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    watch.arm();
    got += chunk.byteLength;
    if (got > size) break; // leaving the loop cancels the rest of the body
    chunks.push(chunk);
  }
  if (got !== size) throw new NexusError('unreachable', 'the download ended early or did not have the size the source declared');
  return chunks;
}

export async function readCapped(res: IncomingMessage, limit: number, watch: Watchdog): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res as AsyncIterable<Buffer>) {
    watch.arm();
    size += chunk.byteLength;
    if (size > limit) throw new NexusError('invalid', `answer larger than ${limit} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Shared keep-alive agents, as fetch shares its dispatcher: a sync's downloads reuse their
 * connections, and idle sockets never hold the process open (the agent unrefs them).
 */
const agents = { 'http:': new http.Agent({ keepAlive: true }), 'https:': new https.Agent({ keepAlive: true }) };

/** One GET, ended by `watch`; resolves at the response's headers. Redirects are answers like any other (never followed). */
export function get(url: URL, headers: Record<string, string>, watch: Watchdog): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const mod = url.protocol === 'https:' ? https : http;
    const req = mod.get(url, { agent: agents[url.protocol as 'http:' | 'https:'], headers }, resolve);
    req.on('error', reject); // after the response, its body reports the failure; this is then a no-op
    watch.attach(req);
  });
}
