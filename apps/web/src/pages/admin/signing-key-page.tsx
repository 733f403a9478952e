import { useId, useState } from 'react';
import { get, getAll, post } from '../../api/client';
import type { Repo, SettingsAnswer, SigningKey } from '../../api/types';
import { CodeBlock } from '../../components/code-block';
import { ConfirmButton } from '../../components/confirm-button';
import { CopyButton } from '../../components/copy-button';
import { ErrorMessage, Loading, Notice } from '../../components/states';
import { useAction } from '../../use-action';
import { useLoad } from '../../use-load';
import { AdminNav } from './admin-nav';

interface KeyPage {
  key: SigningKey;
  /** `gpg.key_file` when a mounted file provides the key (then it cannot be changed here). */
  keyFile: string;
  baseUrl: string;
  debianRepo: string;
}

async function loadKeyPage(): Promise<KeyPage> {
  const [key, settings, repos] = await Promise.all([get<SigningKey>('/api/settings/signing-key'), get<SettingsAnswer>('/api/settings'), getAll<Repo>('/api/repos')]);
  const value = (k: string) => settings.groups.flatMap((g) => g.settings).find((s) => s.key === k)?.value;
  const keyFile = value('gpg.key_file');
  const base = value('base_url');
  return {
    key,
    keyFile: typeof keyFile === 'string' ? keyFile : '',
    baseUrl: (typeof base === 'string' && base) || location.origin,
    debianRepo: repos.find((r) => r.format === 'debian')?.name ?? 'REPO',
  };
}

/** apt's keyring line and a deb822 source whose `Signed-By` names it: the form Debian 12 and Ubuntu 24.04 recommend. */
export function aptSnippets(baseUrl: string, repo: string) {
  return {
    fetch: `sudo install -d -m 0755 /etc/apt/keyrings\ncurl -fsSL ${baseUrl}/keys/debian.asc | sudo tee /etc/apt/keyrings/trove.asc >/dev/null`,
    deb822: `Types: deb\nURIs: ${baseUrl}/debian/${repo}\nSuites: stable\nComponents: main\nSigned-By: /etc/apt/keyrings/trove.asc`,
  };
}

/**
 * The OpenPGP key that signs every Debian repository's indexes: fingerprint and public key to
 * copy, the apt lines that trust it, and replacing it (a new key or an uploaded one).
 */
export function SigningKeyPage() {
  const page = useLoad('signing-key', loadKeyPage);
  const [armored, setArmored] = useState('');
  const [notice, setNotice] = useState('');
  const { error, run } = useAction();
  const uploadId = useId();

  const replace = (body: { armored?: string }, done: string) =>
    run(async () => {
      setNotice('');
      const key = await post<SigningKey>('/api/settings/signing-key', body);
      setArmored('');
      setNotice(`${done} New fingerprint ${key.fingerprint}. Every Debian repository is being signed again; apt clients need the new public key.`);
      page.reload();
    });

  return (
    <section>
      <AdminNav current="signing-key" />
      <h1 tabIndex={-1}>Signing key</h1>
      <p className="lede">
        This OpenPGP key signs the <code>Release</code>, <code>InRelease</code> and <code>Release.gpg</code> files of every Debian repository. apt checks them against the public key below.
      </p>
      {page.state === 'loading' && <Loading what="the signing key" />}
      {page.state === 'error' && <ErrorMessage error={page.error} onRetry={page.reload} />}
      {notice && <Notice tone="success">{notice}</Notice>}
      {page.state === 'ok' && (
        <>
          <div className="card">
            <dl className="facts">
              <dt>Fingerprint</dt>
              <dd className="sum">
                <code data-testid="fingerprint">{page.data.key.fingerprint}</code>
                <CopyButton text={page.data.key.fingerprint} label="Fingerprint" />
              </dd>
              <dt>Public key</dt>
              <dd>
                <a href="/keys/debian.asc">/keys/debian.asc</a> <span className="muted">(no sign-in needed)</span>
              </dd>
            </dl>
            <CodeBlock title="Public key" code={page.data.key.public_key} />
          </div>
          <h2>Trust it in apt</h2>
          <CodeBlock title="Fetch the key" code={aptSnippets(page.data.baseUrl, page.data.debianRepo).fetch} lang="shell" />
          <CodeBlock title={`/etc/apt/sources.list.d/trove.sources`} code={aptSnippets(page.data.baseUrl, page.data.debianRepo).deb822} />
          <h2>Replace the key</h2>
          {page.data.keyFile ? (
            <Notice tone="warn">
              The key comes from the file <code>{page.data.keyFile}</code> (setting <code>gpg.key_file</code>), so it is read-only here. Replace the file and restart, or clear the setting to go
              back to the stored key.
            </Notice>
          ) : (
            <div className="stack">
              <div className="card">
                <p>
                  <strong>Generate a new key.</strong> The old key stops signing at once: every apt client must fetch the new public key before its next <code>apt-get update</code>.
                </p>
                <ConfirmButton label="Generate a new key" confirm="Replace the key with a new one" busyLabel="Generating…" onConfirm={async () => { await replace({}, 'A new key was generated.'); }} />
              </div>
              <form
                className="card"
                onSubmit={(e) => {
                  e.preventDefault();
                }}
              >
                <div className="field">
                  <label htmlFor={uploadId}>Armored private key</label>
                  <textarea
                    id={uploadId}
                    rows={6}
                    spellCheck={false}
                    autoComplete="off"
                    placeholder="-----BEGIN PGP PRIVATE KEY BLOCK-----"
                    value={armored}
                    onChange={(e) => setArmored(e.target.value)}
                    aria-describedby={`${uploadId}-hint`}
                  />
                  <small id={`${uploadId}-hint`} className="hint">
                    An unencrypted key (for example from <code>gpg --armor --export-secret-keys KEYID</code>). It is stored encrypted and never shown again.
                  </small>
                </div>
                {armored.trim() && <ConfirmButton label="Upload this key" confirm="Replace the key with the uploaded one" busyLabel="Uploading…" onConfirm={async () => { await replace({ armored }, 'The uploaded key is in use.'); }} />}
              </form>
            </div>
          )}
          <ErrorMessage error={error} />
        </>
      )}
    </section>
  );
}
