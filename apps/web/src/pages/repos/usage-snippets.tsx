import { enc, get } from '../../api/client';
import type { Usage } from '../../api/types';
import { CodePre } from '../../components/code-block';
import { CopyButton } from '../../components/copy-button';
import { ErrorMessage, Loading } from '../../components/states';
import { useLoad } from '../../use-load';

/** The format's snippets from `/api/repos/{name}/usage`, each a disclosure (the first open) with a copy button. */
export function UsageSnippets({ repo }: { repo: string }) {
  const usage = useLoad(`usage:${repo}`, () => get<Usage>(`/api/repos/${enc(repo)}/usage`));
  return (
    <section aria-labelledby="usage-h" className="usage">
      <h2 id="usage-h">Use this repository</h2>
      {usage.state === 'loading' && <Loading what="usage" />}
      {usage.state === 'error' && <ErrorMessage error={usage.error} onRetry={usage.reload} />}
      {usage.state === 'ok' &&
        (usage.data.snippets.length ? (
          usage.data.snippets.map((s, i) => (
            <details key={s.title} className="snippet" open={i === 0}>
              <summary>{s.title}</summary>
              <div className="snippet-body" role="figure" aria-label={s.title}>
                <CopyButton text={s.code} label={s.title} />
                <CodePre title={s.title} code={s.code} lang={s.lang} />
              </div>
            </details>
          ))
        ) : (
          <p className="muted">This format has no snippets.</p>
        ))}
    </section>
  );
}
