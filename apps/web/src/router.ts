import { useEffect, useState } from 'react';

/** A hash route: `#/repos/files?path=a/b` gives segments `['repos', 'files']` and the query. */
export interface Route {
  segments: string[];
  query: URLSearchParams;
  /** The hash without `#`, for `next=` links back after sign-in. */
  raw: string;
}

export function parseHash(hash: string): Route {
  const raw = hash.replace(/^#/, '') || '/';
  const q = raw.indexOf('?');
  const path = q >= 0 ? raw.slice(0, q) : raw;
  const segments = path
    .split('/')
    .filter(Boolean)
    .map((s) => {
      try {
        return decodeURIComponent(s);
      } catch {
        return s;
      }
    });
  return { segments, query: new URLSearchParams(q >= 0 ? raw.slice(q + 1) : ''), raw };
}

export function useRoute(): Route {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const on = () => setHash(location.hash);
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return parseHash(hash);
}

/** `href` for a route: `link('repos', name)` → `#/repos/name`, segments encoded. */
export function link(...parts: (string | Record<string, string | undefined>)[]): string {
  const query = parts.find((p): p is Record<string, string | undefined> => typeof p === 'object');
  const path = parts.filter((p): p is string => typeof p === 'string').map(encodeURIComponent).join('/');
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) if (v) q.set(k, v);
  const s = q.toString();
  return `#/${path}${s ? `?${s}` : ''}`;
}

export function navigate(href: string): void {
  location.hash = href.replace(/^#/, '');
}

/** Where to go after sign-in or setup: only same-app hash routes (never another site), never back to sign-in. */
export const safeNext = (next: string | null): string => (next && next.startsWith('/') && !next.startsWith('//') && !next.startsWith('/login') ? `#${next}` : '#/');
