/** JSON API client: same-origin credentials, `{"error"}` bodies surfaced as messages. */
export class ApiError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

export async function api<T>(path: string): Promise<T> {
  const r = await fetch(path, { credentials: 'same-origin', headers: { Accept: 'application/json' } });
  const body = await r.json().catch(() => null);
  if (!r.ok) throw new ApiError(r.status, (body && typeof body.error === 'string' && body.error) || `request failed (${r.status})`);
  return body as T;
}

export interface Repo {
  name: string;
  format: string;
  anonymous_read: boolean;
}
export interface Asset {
  path: string;
  size: number;
  sha256: string;
  uploader: string;
  updated_at: string;
}
export interface Page<T> {
  items: T[];
  next: string;
}
export interface Usage {
  base_url: string;
  snippets: { title: string; lang: string; code: string }[];
}
