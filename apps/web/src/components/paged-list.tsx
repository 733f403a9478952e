import type { ReactNode } from 'react';
import type { Paged } from '../use-paged';
import { Empty, ErrorMessage, Loading } from './states';

/**
 * A cursor-paged list in its states: the first page's error (with a retry), `empty` once it
 * has loaded nothing, else `children` of the rows so far; then "Load more" with the loading
 * and error line of the next page.
 */
export function PagedList<T>({ list, what, empty, children }: { list: Paged<T>; what: string; empty: ReactNode; children(items: T[]): ReactNode }) {
  const { items, next, loading, error } = list;
  return (
    <>
      {error && !items.length ? (
        <ErrorMessage error={error} onRetry={list.reload} />
      ) : !loading && !items.length ? (
        <Empty>{empty}</Empty>
      ) : (
        items.length > 0 && children(items)
      )}
      {error && items.length > 0 && <ErrorMessage error={error} onRetry={list.loadMore} />}
      {loading && <Loading what={what} />}
      {next && !loading && (
        <button type="button" onClick={list.loadMore}>
          Load more {what}
        </button>
      )}
    </>
  );
}
