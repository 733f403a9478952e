import { CliError } from './errors.js';

export interface Answer {
  status: number;
  headers: Headers;
  // The server's JSON answer, or the text when it is not JSON.
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** No request was answered (unreachable, cut off, too slow): worth another try, unlike an answer. */
export class NetworkError extends CliError {}

/** The most of an answer kept: Trove's JSON answers are far smaller; a larger one could exhaust memory. */
export const MAX_ANSWER_BYTES = 1 << 20;
export const tooLarge = (base: string, what: string) => new CliError(`${base} sent an answer larger than 1 MiB to ${what}`);

/** Seconds without an answer (uploads: without progress) before giving up: `$TROVE_TIMEOUT`, default 60. */
export function timeoutSeconds(): number {
  const s = Number(process.env.TROVE_TIMEOUT);
  return Number.isFinite(s) && s > 0 ? s : 60;
}

/** The server's own `{"error": ...}` message, or the status line. */
export function serverMessage(a: Answer): string {
  const b = a.body as { error?: unknown; error_description?: unknown } | string | null;
  if (b && typeof b === 'object') {
    if (typeof b.error_description === 'string') return b.error_description;
    if (typeof b.error === 'string') return b.error;
  }
  if (typeof b === 'string' && b.trim()) return b.trim().split('\n')[0]!.slice(0, 200);
  return `HTTP ${a.status}`;
}

/** Why a request never got an answer, in words (connection refused, DNS, TLS). */
export function networkMessage(base: string, e: unknown): string {
  const cause = (e as { cause?: { code?: string; message?: string } }).cause;
  const detail = cause?.code ?? cause?.message ?? (e as Error).message;
  return `cannot reach ${base}: ${detail}`;
}

/** JSON, or the text itself when it is not JSON (for the message); null when empty. */
export function parseBody(text: string): unknown {
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    return text;
  }
}

/**
 * A 3xx is refused, never followed: fetch would send the method and body again to the Location,
 * and those bodies carry the CI identity token, the device's challenge, the enrollment; a
 * session token another host returned would then be used.
 */
export function redirectError(who: string, status: number, location: string | null, what: string, why: string): CliError {
  let where = location ?? '(no Location)';
  try {
    if (location) where = new URL(location, who).href;
  } catch {
    // not a URL: name it as given
  }
  return new CliError(`${who} answered ${status} to ${what}, a redirect to ${where}; trove does not follow redirects (${why}): use the server's own URL`);
}

/** The body, up to MAX_ANSWER_BYTES; a longer one is cut off and refused. */
export async function readCapped(res: Response, base: string, what: string): Promise<string> {
  if (Number(res.headers.get('content-length')) > MAX_ANSWER_BYTES) {
    await res.body?.cancel();
    throw tooLarge(base, what);
  }
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_ANSWER_BYTES) {
      await reader.cancel();
      throw tooLarge(base, what);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** One JSON API call. `auth` is a full Authorization header value. */
export async function api(base: string, path: string, init: { method?: string; body?: unknown; auth?: string } = {}): Promise<Answer> {
  const headers: Record<string, string> = { accept: 'application/json', 'user-agent': 'trove-cli' };
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  if (init.auth) headers.authorization = init.auth;
  const method = init.method ?? (init.body !== undefined ? 'POST' : 'GET');
  const what = `${method} ${path}`;
  const seconds = timeoutSeconds();
  // One deadline for the answer and its body: a server that trickles bytes is as stuck as a silent one.
  const signal = AbortSignal.timeout(seconds * 1000);
  try {
    const res = await fetch(base + path, {
      method,
      headers,
      body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
      signal,
      redirect: 'manual',
    });
    if (res.status >= 300 && res.status < 400) {
      await res.body?.cancel();
      throw redirectError(base, res.status, res.headers.get('location'), what, 'they could take credentials elsewhere');
    }
    const text = await readCapped(res, base, what);
    return { status: res.status, headers: res.headers, body: parseBody(text) };
  } catch (e) {
    if (e instanceof CliError) throw e;
    if (signal.aborted) throw new NetworkError(`${base} did not answer ${what} within ${seconds} s`);
    throw new NetworkError(networkMessage(base, e));
  }
}

/** A 429's advice: when to try again. */
export const retryAfter = (a: Answer) => {
  const s = Number(a.headers.get('retry-after'));
  return Number.isFinite(s) && s > 0 ? ` (try again in ${s} s)` : '';
};
