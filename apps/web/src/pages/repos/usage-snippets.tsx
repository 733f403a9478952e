import { enc, get } from '../../api/client';
import type { Usage } from '../../api/types';
import { CodeBlock } from '../../components/code-block';
import { ErrorMessage, Loading } from '../../components/states';
import { useLoad } from '../../use-load';

export function UsageSnippets({ repo }: { repo: string }) {
  const usage = useLoad(`usage:${repo}`, () => get<Usage>(`/api/repos/${enc(repo)}/usage`));
  return (
    <section aria-labelledby="usage-h">
      <h2 id="usage-h">Use this repository</h2>
      {usage.state === 'loading' && <Loading what="usage" />}
      {usage.state === 'error' && <ErrorMessage error={usage.error} onRetry={usage.reload} />}
      {usage.state === 'ok' &&
        (usage.data.snippets.length ? (
          usage.data.snippets.map((s) => <CodeBlock key={s.title} title={s.title} code={s.code} lang={s.lang} />)
        ) : (
          <p className="muted">This format has no snippets.</p>
        ))}
    </section>
  );
}
