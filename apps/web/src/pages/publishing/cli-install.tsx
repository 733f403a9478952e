import { CodePre } from '../../components/code-block';
import { CopyButton } from '../../components/copy-button';
import { Loading } from '../../components/states';
import { useBaseUrl } from '../../use-base-url';
import { cliCommands } from './session-commands';

/** How to get the `trove` CLI from this server: it enrolls devices and opens sessions for build tools and CI. */
export function CliInstall() {
  // The server's base_url, as in the repository pages' snippets: the browser may have reached it by another name.
  const base = useBaseUrl();
  return (
    <section aria-labelledby="cli-h">
      <h2 id="cli-h">Command-line client</h2>
      <p className="muted">
        <code>trove login</code> enrolls this machine&apos;s key (you approve it below); <code>trove exec</code> and <code>trove upload</code> open a
        session for each publish. In CI, <code>--oidc</code> uses the job&apos;s identity token instead.
      </p>
      {base === null ? (
        <Loading what="the server's address" />
      ) : (
        cliCommands(base).map((c) => (
          <div key={c.title} className="snippet-body" role="figure" aria-label={c.title}>
            <CopyButton text={c.code} label={c.title} />
            <CodePre title={c.title} code={c.code} lang={c.lang} />
          </div>
        ))
      )}
    </section>
  );
}
