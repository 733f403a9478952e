/**
 * Ready-to-paste commands for a fresh publish token: the upload command of the repository's
 * format first, then the others (a token also reads its own repository).
 */
export interface Command {
  title: string;
  lang: string;
  code: string;
}

export function sessionCommands(base: string, format: string, repo: string, token: string): Command[] {
  const mavenUrl = `${base}/maven/${repo}`;
  const maven: Command[] = [
    {
      title: 'Maven: server entry for ~/.m2/settings.xml (inside <servers>)',
      lang: 'xml',
      code: `<server>\n  <id>trove</id>\n  <username>publisher</username>\n  <password>${token}</password>\n</server>`,
    },
    {
      title: 'Maven: deploy a file',
      lang: 'shell',
      code: `mvn deploy:deploy-file -Durl=${mavenUrl} -DrepositoryId=trove -DgroupId=org.example -DartifactId=app -Dversion=1.0.0 -Dfile=app-1.0.0.jar`,
    },
    {
      title: 'Gradle: publishing repository (build.gradle.kts), then ./gradlew publish',
      lang: 'kotlin',
      code: `publishing {\n  repositories {\n    maven {\n      name = "trove"\n      url = uri("${mavenUrl}")\n      credentials {\n        username = "publisher"\n        password = "${token}"\n      }\n    }\n  }\n}`,
    },
  ];
  const raw: Command[] = [{ title: 'curl: upload a file', lang: 'shell', code: `curl -fsS -u "publisher:${token}" -T ./file.tar.gz ${base}/raw/${repo}/path/to/file.tar.gz` }];
  const debian: Command[] = [
    {
      title: 'curl: upload a Debian package',
      lang: 'shell',
      code: `curl -fsS -u "publisher:${token}" -T ./package_1.0_amd64.deb ${base}/debian/${repo}/upload/stable/main`,
    },
    {
      title: 'apt: read the repository with this token',
      lang: 'shell',
      code: `curl -fsS -o /etc/apt/keyrings/trove.asc ${base}/keys/debian.asc\necho "deb [signed-by=/etc/apt/keyrings/trove.asc] ${base}/debian/${repo} stable main" > /etc/apt/sources.list.d/trove.list\necho "machine ${base.replace(/^https?:\/\//, '')}/debian/${repo} login publisher password ${token}" > /etc/apt/auth.conf.d/trove.conf\napt-get update`,
    },
  ];
  const curlPut: Command = {
    title: 'curl: upload a file',
    lang: 'shell',
    code: `curl -fsS -u "publisher:${token}" -T ./app-1.0.0.jar ${mavenUrl}/org/example/app/1.0.0/app-1.0.0.jar`,
  };
  if (format === 'maven') return [...maven, curlPut];
  if (format === 'debian') return debian;
  if (format === 'raw') return raw;
  return [{ title: 'curl: upload', lang: 'shell', code: `curl -fsS -u "publisher:${token}" -T ./file ${base}/${format}/${repo}/path/to/file` }];
}

/** The `trove` CLI, installed from this server: what the Publishing page shows first. */
export function cliCommands(base: string): Command[] {
  return [
    { title: 'Install the trove command-line client (Node.js 20 or later)', lang: 'shell', code: `npm install -g ${base}/downloads/trove-cli.tgz` },
    {
      title: 'Enroll this machine once, then publish',
      lang: 'shell',
      code: `trove login ${base}\ntrove exec --repo REPO -- mvn deploy        # or: -- ./gradlew publish\ntrove upload REPO ./file.tar.gz path/to/file.tar.gz`,
    },
  ];
}
