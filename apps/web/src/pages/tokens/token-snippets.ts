/**
 * Where a fresh read token goes, per client; the token is the password, the user name is free.
 * The repository pages' Maven and Gradle snippets read TROVE_USER and TROVE_TOKEN from the environment.
 */
export function tokenSnippets(base: string, username: string, token: string): { title: string; lang: string; code: string }[] {
  const host = base.replace(/^https?:\/\//, '');
  return [
    { title: 'Environment for the Maven and Gradle snippets on repository pages', lang: 'shell', code: `export TROVE_USER=${username}\nexport TROVE_TOKEN=${token}` },
    { title: 'curl', lang: 'shell', code: `curl -fsS -u "${username}:${token}" -O ${base}/raw/REPO/path/to/file` },
    { title: 'apt: /etc/apt/auth.conf.d/trove.conf', lang: 'ini', code: `machine ${host}/debian/ login ${username} password ${token}` },
  ];
}
