import { CliError } from './errors.js';

export interface Answer {
  status: number;
  headers: Headers;
  // The server's JSON answer, or the text when it is not JSON.
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
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

/** One JSON API call. `auth` is a full Authorization header value. */
export async function api(base: string, path: string, init: { method?: string; body?: unknown; auth?: string } = {}): Promise<Answer> {
  const headers: Record<string, string> = { accept: 'application/json', 'user-agent': 'trove-cli' };
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  if (init.auth) headers.authorization = init.auth;
  let res: Response;
  try {
    res = await fetch(base + path, {
      method: init.method ?? (init.body !== undefined ? 'POST' : 'GET'),
      headers,
      body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
      signal: AbortSignal.timeout(60_000),
    });
  } catch (e) {
    throw new CliError(networkMessage(base, e));
  }
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // not JSON: keep the text for the message
  }
  return { status: res.status, headers: res.headers, body };
}

/** A 429's advice: when to try again. */
export const retryAfter = (a: Answer) => {
  const s = Number(a.headers.get('retry-after'));
  return Number.isFinite(s) && s > 0 ? ` (try again in ${s} s)` : '';
};
