import { enc, get, url } from '../../api/client';
import type { Asset, Page, Repo } from '../../api/types';
import { CodeBlock } from '../../components/code-block';
import { CopyButton } from '../../components/copy-button';
import { formatDate, formatSize } from '../../components/format';
import { ErrorMessage, Loading } from '../../components/states';
import { link } from '../../router';
import { useMe } from '../../session';
import { useLoad } from '../../use-load';
import { dependencySnippets, mavenCoords } from './maven-coords';

/** Where a file downloads from: its format's route. */
export const downloadPath = (repo: Repo, path: string) => `/${repo.format}/${enc(repo.name)}/${path.split('/').map(enc).join('/')}`;

function Sum({ label, value }: { label: string; value: string | null }) {
  if (!value) return null;
  return (
    <>
      <dt>{label}</dt>
      <dd className="sum">
        <code>{value}</code>
        <CopyButton text={value} label={label} />
      </dd>
    </>
  );
}

export function FileDetails({ repo, path }: { repo: Repo; path: string }) {
  const me = useMe();
  // No single-file API: the prefix scan with limit 1 finds the exact path first (path order).
  const asset = useLoad(`asset:${repo.name}:${path}`, async () => {
    const p = await get<Page<Asset>>(url(`/api/repos/${enc(repo.name)}/assets`, { prefix: path, limit: 1 }));
    const a = p.items[0];
    if (!a || a.path !== path) throw new Error(`There is no file ${path} in ${repo.name}.`);
    return a;
  });
  const folder = path.includes('/') ? path.slice(0, path.lastIndexOf('/') + 1) : '';
  const href = downloadPath(repo, path);
  const coords = repo.format === 'maven' ? mavenCoords(path) : null;
  return (
    <section className="card" aria-labelledby="file-h">
      <nav aria-label="Back" className="crumbs">
        <a href={link('repos', repo.name, folder ? { prefix: folder } : {})}>← {folder ? folder : 'All files'}</a>
      </nav>
      <h2 id="file-h" className="path">
        {path}
      </h2>
      {asset.state === 'loading' && <Loading what="file details" />}
      {asset.state === 'error' && <ErrorMessage error={asset.error} />}
      {asset.state === 'ok' && (
        <>
          <dl className="facts">
            <dt>Size</dt>
            <dd>
              {formatSize(asset.data.size)} <span className="muted">({asset.data.size.toLocaleString()} bytes)</span>
            </dd>
            <dt>Type</dt>
            <dd>{asset.data.content_type || 'application/octet-stream'}</dd>
            <dt>Uploaded by</dt>
            <dd>{asset.data.uploader || '—'}</dd>
            <dt>First uploaded</dt>
            <dd>{formatDate(asset.data.created_at)}</dd>
            <dt>Updated</dt>
            <dd>{formatDate(asset.data.updated_at)}</dd>
            <Sum label="SHA-256" value={asset.data.sha256} />
            <Sum label="SHA-1" value={asset.data.sha1} />
            <Sum label="MD5" value={asset.data.md5} />
          </dl>
          <div className="actions">
            <a className="button primary" href={href} download>
              Download
            </a>
            <CopyButton text={new URL(href, location.href).href} label="download URL" caption="Copy URL" />
          </div>
          {coords && (
            <div className="deps">
              {dependencySnippets(coords).map((s) => (
                <CodeBlock key={s.title} title={`Depend on it: ${s.title}`} code={s.code} lang={s.lang} />
              ))}
            </div>
          )}
          {!repo.anonymous_read &&
            (me && me.kind !== 'local' ? (
              // Format routes take HTTP Basic only, never the UI cookie, and an SSO account has neither a password nor a read token.
              <p className="hint">
                This repository is private: downloads use HTTP Basic, so your browser asks for a user name and a password or read token. A
                single sign-on account has neither: download with a local account that can read {repo.name}.
              </p>
            ) : (
              <p className="hint">
                This repository is private: downloads use HTTP Basic, so your browser asks for your user name and your password or a{' '}
                <a href="#/tokens">read token</a>.
              </p>
            ))}
        </>
      )}
    </section>
  );
}
