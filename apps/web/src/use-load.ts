import { useEffect, useState } from 'react';

export type Load<T> = { state: 'loading' } | { state: 'error'; error: string } | { state: 'ok'; data: T };

/** Runs `fn` whenever `key` changes and tracks loading, error and data. */
export function useLoad<T>(key: string, fn: () => Promise<T>): Load<T> {
  const [load, setLoad] = useState<Load<T>>({ state: 'loading' });
  useEffect(() => {
    let live = true;
    setLoad({ state: 'loading' });
    fn().then(
      (data) => live && setLoad({ state: 'ok', data }),
      (e: Error) => live && setLoad({ state: 'error', error: e.message }),
    );
    return () => {
      live = false;
    };
  }, [key]);
  return load;
}
