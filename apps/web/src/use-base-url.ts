import { enc, get } from './api/client';
import type { Page, Repo, Usage } from './api/types';
import { useLoad } from './use-load';

/**
 * The server's `base_url` for snippets, from the same source as the repository pages' and the
 * manual session's commands: `GET /api/repos/{name}/usage` (which answers the request's own origin
 * when `base_url` is empty). Any readable repository gives it; with none, this page's origin.
 */
export async function loadBaseUrl(): Promise<string> {
  const repos = await get<Page<Repo>>('/api/repos?limit=1');
  const first = repos.items[0];
  if (!first) return location.origin;
  const usage = await get<Usage>(`/api/repos/${enc(first.name)}/usage`).catch(() => null);
  return usage?.base_url || location.origin;
}

/** `loadBaseUrl` for a page: null while it loads; this origin if it fails. */
export function useBaseUrl(): string | null {
  const base = useLoad('base-url', () => loadBaseUrl().catch(() => location.origin));
  return base.state === 'ok' ? base.data : null;
}
