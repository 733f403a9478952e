import { useCallback, useState } from 'react';

/**
 * One async action of a form or button: `busy` while `run(fn)` runs, and the message of its
 * failure in `error` (cleared when it starts again). `run` answers whether `fn` succeeded.
 */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const run = useCallback(async (fn: () => Promise<unknown>): Promise<boolean> => {
    setBusy(true);
    setError('');
    try {
      await fn();
      return true;
    } catch (e) {
      setError((e as Error).message);
      return false;
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, setError, run };
}
