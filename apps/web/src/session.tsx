import { createContext, useCallback, useContext, useEffect, useState, type ReactNode } from 'react';
import { ApiError, get, setUnauthorizedHandler } from './api/client';
import type { Me } from './api/types';

export type SessionState = { state: 'loading' } | { state: 'anonymous' } | { state: 'error'; error: string } | { state: 'user'; me: Me };

interface SessionValue {
  session: SessionState;
  /** Re-reads `/api/me` (after sign-in, sign-out or a second factor was added). */
  refresh(): Promise<void>;
}

const Ctx = createContext<SessionValue>({ session: { state: 'loading' }, refresh: async () => {} });

export function SessionProvider({ children }: { children: ReactNode }) {
  const [session, setSession] = useState<SessionState>({ state: 'loading' });
  const refresh = useCallback(async () => {
    try {
      setSession({ state: 'user', me: await get<Me>('/api/me') });
    } catch (e) {
      if (e instanceof ApiError && e.status === 401) setSession({ state: 'anonymous' });
      else setSession({ state: 'error', error: (e as Error).message });
    }
  }, []);
  useEffect(() => {
    void refresh();
  }, [refresh]);
  const signedIn = session.state === 'user';
  useEffect(() => {
    setUnauthorizedHandler(signedIn ? () => void refresh() : null);
    return () => setUnauthorizedHandler(null);
  }, [signedIn, refresh]);
  return <Ctx.Provider value={{ session, refresh }}>{children}</Ctx.Provider>;
}

export const useSession = () => useContext(Ctx);

/** The signed-in user, or null. */
export function useMe(): Me | null {
  const { session } = useSession();
  return session.state === 'user' ? session.me : null;
}
