import { useCallback, useEffect, useRef, useState } from 'react';
import { get } from './api/client';
import type { Page } from './api/types';

export interface Paged<T> {
  items: T[];
  /** Cursor of the next page; empty on the last one. */
  next: string;
  loading: boolean;
  error: string;
  loadMore(): void;
  reload(): void;
}

/**
 * A list that pages with the API's `{items, next}` cursors (`?after=`). `path` may already
 * carry a query. Pages are appended; `reload()` starts again from the first.
 */
export function usePaged<T>(path: string | null, limit = 50): Paged<T> {
  const [items, setItems] = useState<T[]>([]);
  const [next, setNext] = useState('');
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState('');
  const [tick, setTick] = useState(0);
  const gen = useRef(0);

  const fetchPage = useCallback(
    (after: string, replace: boolean) => {
      if (!path) return;
      const mine = ++gen.current;
      setLoading(true);
      setError('');
      const sep = path.includes('?') ? '&' : '?';
      get<Page<T> | T[]>(`${path}${sep}limit=${limit}${after ? `&after=${encodeURIComponent(after)}` : ''}`).then(
        (p) => {
          if (mine !== gen.current) return;
          const page = Array.isArray(p) ? { items: p, next: '' } : p;
          setItems((old) => (replace ? page.items : [...old, ...page.items]));
          setNext(page.next || '');
          setLoading(false);
        },
        (e: Error) => {
          if (mine !== gen.current) return;
          setError(e.message);
          setLoading(false);
        },
      );
    },
    [path, limit],
  );

  const shown = useRef<string | null>(null);
  useEffect(() => {
    // A reload keeps the rows on screen until the new first page replaces them.
    if (shown.current !== path) {
      setItems([]);
      setNext('');
      shown.current = path;
    }
    if (!path) {
      setLoading(false);
      return;
    }
    fetchPage('', true);
  }, [fetchPage, tick]);

  return {
    items,
    next,
    loading,
    error,
    loadMore: () => next && fetchPage(next, false),
    reload: () => setTick((t) => t + 1),
  };
}
