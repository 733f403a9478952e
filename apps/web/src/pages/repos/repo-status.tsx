import { useEffect } from 'react';
import { enc, get } from '../../api/client';
import { useLoad } from '../../use-load';

/** Debian index state: `pending` units still to rebuild; polled while non-zero. */
export function RepoStatus({ repo }: { repo: string }) {
  const status = useLoad(`status:${repo}`, () => get<{ pending?: number }>(`/api/repos/${enc(repo)}/status`));
  const pending = status.state === 'ok' ? status.data.pending : undefined;
  useEffect(() => {
    if (!pending) return;
    const t = setTimeout(status.reload, 2000);
    return () => clearTimeout(t);
  }, [pending, status.state === 'ok' ? status.data : null]);
  if (status.state === 'error') return <span className="state failed">index status unknown</span>;
  if (pending === undefined) return null;
  return (
    <span className={`state ${pending ? 'pending' : 'open'}`} role="status" data-testid="index-status">
      {pending ? `indexes rebuilding (${pending} pending)` : 'indexes up to date'}
    </span>
  );
}
