import { useCallback, useEffect, useState } from 'react';

export type Load<T> = { state: 'loading' } | { state: 'error'; error: string } | { state: 'ok'; data: T };

/** Runs `fn` whenever `key` changes; `reload()` runs it again. */
export function useLoad<T>(key: string, fn: () => Promise<T>): Load<T> & { reload(): void } {
  const [load, setLoad] = useState<Load<T>>({ state: 'loading' });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    setLoad((old) => (old.state === 'ok' && tick > 0 ? old : { state: 'loading' }));
    fn().then(
      (data) => live && setLoad({ state: 'ok', data }),
      (e: Error) => live && setLoad({ state: 'error', error: e.message }),
    );
    return () => {
      live = false;
    };
  }, [key, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { ...load, reload };
}
