import { useState } from 'react';
import { del, enc } from '../../api/client';
import type { ReadToken } from '../../api/types';
import { CodeBlock } from '../../components/code-block';
import { ConfirmButton } from '../../components/confirm-button';
import { Time } from '../../components/format';
import { PagedList } from '../../components/paged-list';
import { ErrorMessage, Loading, Notice } from '../../components/states';
import { SecretOnce } from '../../components/secret-once';
import { Table } from '../../components/table';
import { useAction } from '../../use-action';
import { usePaged } from '../../use-paged';
import { useMe } from '../../session';
import { useBaseUrl } from '../../use-base-url';
import { CreateToken } from './create-token';
import { tokenSnippets } from './token-snippets';

export function TokensPage() {
  const me = useMe();
  // SSO accounts cannot create read tokens (POST /api/tokens is 403 for them): say so instead of a form that always fails.
  if (me && me.kind !== 'local')
    return (
      <section>
        <h1 tabIndex={-1}>Read tokens</h1>
        <Notice>
          Single sign-on accounts have no read tokens: they sign in to this web UI through the identity provider only, and Trove creates no
          tokens for them. Maven, Gradle, apt and curl download from private repositories with a local account&apos;s password or read token.
        </Notice>
      </section>
    );
  return <LocalTokens username={me?.username ?? 'reader'} />;
}

function LocalTokens({ username }: { username: string }) {
  const base = useBaseUrl();
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
          {base === null ? (
            <Loading what="the server's address" />
          ) : (
            tokenSnippets(base, username, created.token).map((s) => <CodeBlock key={s.title} title={s.title} code={s.code} lang={s.lang} />)
          )}
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

