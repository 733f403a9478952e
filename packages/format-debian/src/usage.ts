import type { UsageInput, UsageSnippet } from '@trove/core';
import { configOf } from './config.js';

export function debianUsage({ baseUrl, repo }: UsageInput): UsageSnippet[] {
  const url = `${baseUrl}/debian/${repo.name}`;
  const keyring = `/etc/apt/keyrings/trove-${repo.name}.gpg`;
  const config = configOf(repo.config);
  const arches = config.architectures.join(' ');
  // A mirrored apt repository's packages live in its source's one distribution, not in `stable`.
  const dist = config.distribution ?? 'stable';
  const host = baseUrl.replace(/^https?:\/\//, '');
  const snippets: UsageSnippet[] = [
    {
      title: 'Install the repository signing key',
      lang: 'shell',
      code: `sudo install -d -m 0755 /etc/apt/keyrings\ncurl -fsSL ${baseUrl}/keys/debian.asc | sudo gpg --dearmor -o ${keyring}`,
    },
    {
      title: `Add the repository (/etc/apt/sources.list.d/${repo.name}.sources)`,
      lang: 'ini',
      code: `Types: deb\nURIs: ${url}\nSuites: ${dist}\nComponents: main\nArchitectures: ${arches}\nSigned-By: ${keyring}`,
    },
  ];
  if (!repo.anonymousRead) {
    snippets.push({
      title: `Credentials for a private repository (/etc/apt/auth.conf.d/${repo.name}.conf, mode 0600)`,
      lang: 'shell',
      code: `printf 'machine ${host}/debian/${repo.name}\\nlogin reader\\npassword %s\\n' "$TROVE_TOKEN" | sudo install -m 0600 /dev/stdin /etc/apt/auth.conf.d/${repo.name}.conf`,
    });
  }
  snippets.push(
    { title: 'Install a package', lang: 'shell', code: 'sudo apt-get update\nsudo apt-get install hello' },
    {
      title: 'Upload a package with the trove CLI (it opens and closes the publish session)',
      lang: 'shell',
      code: `npm install -g ${baseUrl}/downloads/trove-cli.tgz   # once\ntrove login ${baseUrl}                                # once per machine (CI: --oidc)\ntrove upload ${repo.name} ./hello_1.0_amd64.deb --dist ${dist} --component main`,
    },
    {
      title: 'Upload a package to a distribution and component (needs a publish session token)',
      lang: 'shell',
      code: `curl -fsS -u "ci:$TROVE_PUBLISH_TOKEN" -T ./hello_1.0_amd64.deb ${url}/upload/${dist}/main`,
    },
  );
  return snippets;
}
