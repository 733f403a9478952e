/**
 * The JSON API client: same-origin cookies, JSON bodies, and the API's `{"error"}` bodies
 * turned into an `ApiError` whose message is shown to people as is.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly retryAfter: number | null = null,
    /** The parsed answer, for errors that carry more than a message (settings' `fields`, a test's `ok: false`). */
    readonly body: unknown = null,
  ) {
    super(message);
  }
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

let onUnauthorized: (() => void) | null = null;
/** Called when a signed-in call gets 401 (the sign-in ended or expired), so the app can re-check who is signed in. */
export function setUnauthorizedHandler(fn: (() => void) | null): void {
  onUnauthorized = fn;
}

function messageFor(status: number, body: unknown, retryAfter: number | null): string {
  const error = body && typeof body === 'object' && typeof (body as { error?: unknown }).error === 'string' ? (body as { error: string }).error : '';
  if (status === 429) return `Too many attempts. Try again in ${retryAfter ?? 'a few'} seconds.`;
  if (error) return error.charAt(0).toUpperCase() + error.slice(1);
  if (status === 0) return 'The server cannot be reached. Check your connection and try again.';
  if (status >= 500) return `The server failed (${status}). Try again in a moment.`;
  return `The request failed (${status}).`;
}

export async function request<T>(method: Method, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<T> {
  return (await requestWithStatus<T>(method, path, body, headers)).data;
}

/** Like `request`, with the status too, for routes whose success has two shapes (a settings save answering 202 with a storage move). */
export async function requestWithStatus<T>(method: Method, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; data: T }> {
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      credentials: 'same-origin',
      headers: { Accept: 'application/json', ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, messageFor(0, null, null));
  }
  if (res.status === 204) return { status: 204, data: undefined as T };
  const data: unknown = await res.json().catch(() => null);
  if (!res.ok) {
    const retry = Number(res.headers.get('retry-after'));
    const retryAfter = Number.isFinite(retry) && retry > 0 ? retry : null;
    // Sign-in routes answer 401 for a wrong password or code; everywhere else it means the session is gone.
    if (res.status === 401 && !path.startsWith('/api/auth/') && path !== '/api/me') onUnauthorized?.();
    throw new ApiError(res.status, messageFor(res.status, data, retryAfter), retryAfter, data);
  }
  return { status: res.status, data: data as T };
}

export const get = <T>(path: string) => request<T>('GET', path);
export const post = <T>(path: string, body: unknown = {}) => request<T>('POST', path, body);
export const put = <T>(path: string, body: unknown) => request<T>('PUT', path, body);
export const patch = <T>(path: string, body: unknown) => request<T>('PATCH', path, body);
export const del = (path: string, headers?: Record<string, string>) => request<void>('DELETE', path, undefined, headers);

/**
 * Every item of a `{items, next}` list, following the cursors 200 at a time: for pickers and
 * small admin lists that show everything at once (repositories).
 */
export async function getAll<T>(path: string): Promise<T[]> {
  const items: T[] = [];
  let after = '';
  do {
    const sep = path.includes('?') ? '&' : '?';
    const page = await get<{ items: T[]; next: string }>(`${path}${sep}limit=200${after ? `&after=${encodeURIComponent(after)}` : ''}`);
    items.push(...page.items);
    after = page.next;
  } while (after);
  return items;
}

/** Builds `/api/...?a=b` from a path and defined query values, encoding each. */
export function url(path: string, query: Record<string, string | number | undefined | null> = {}): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `${path}?${s}` : path;
}

export const enc = encodeURIComponent;
