import { useState } from 'react';
import { del, enc } from '../../api/client';
import type { ReadToken } from '../../api/types';
import { CodeBlock } from '../../components/code-block';
import { ConfirmButton } from '../../components/confirm-button';
import { Time } from '../../components/format';
import { PagedList } from '../../components/paged-list';
import { ErrorMessage } from '../../components/states';
import { SecretOnce } from '../../components/secret-once';
import { Table } from '../../components/table';
import { useAction } from '../../use-action';
import { usePaged } from '../../use-paged';
import { useMe } from '../../session';
import { CreateToken } from './create-token';
import { tokenSnippets } from './token-snippets';

export function TokensPage() {
  const me = useMe();
  const list = usePaged<ReadToken>('/api/tokens');
  const [created, setCreated] = useState<{ name: string; token: string } | null>(null);
  const { error, run } = useAction();
  return (
    <section>
      <h1 tabIndex={-1}>Read tokens</h1>
      <p className="lede">
        A read token lets Maven, Gradle, apt or curl download from the repositories you can read, without your password. It never uploads:
        publishing needs a <a href="#/publishing">publish session</a>.
      </p>
      <CreateToken onCreated={(t) => (setCreated(t), list.reload())} />
      {created && (
        <SecretOnce label={`Token “${created.name}”`} value={created.token}>
          {tokenSnippets(location.origin, me?.username ?? 'reader', created.token).map((s) => (
            <CodeBlock key={s.title} title={s.title} code={s.code} lang={s.lang} />
          ))}
          <button type="button" onClick={() => setCreated(null)}>
            Done
          </button>
        </SecretOnce>
      )}
      <h2>Your tokens</h2>
      <ErrorMessage error={error} />
      <PagedList list={list} what="tokens" empty="No tokens yet. Create one above for each machine or build that downloads artifacts.">
        {(items) => (
          <Table columns={['Name', 'Created', 'Last used', 'Expires']} actions>
            {items.map((t) => (
              <tr key={t.id}>
                <td>
                  <strong>{t.name}</strong>
                </td>
                <td>
                  <Time iso={t.created_at} />
                </td>
                <td>
                  <Time iso={t.last_used_at} />
                </td>
                <td>{t.expires_at ? <Time iso={t.expires_at} /> : <span className="muted">never</span>}</td>
                <td className="end">
                  <ConfirmButton
                    label="Delete"
                    confirm={`Delete ${t.name}`}
                    onConfirm={async () => {
                      await run(async () => {
                        await del(`/api/tokens/${enc(t.id)}`);
                        list.reload();
                      });
                    }}
                  />
                </td>
              </tr>
            ))}
          </Table>
        )}
      </PagedList>
    </section>
  );
}

