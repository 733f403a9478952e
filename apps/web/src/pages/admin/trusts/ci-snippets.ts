import type { TrustInput } from '../../../api/types';

export interface CiSnippet {
  title: string;
  lang: string;
  code: string;
}

/**
 * The publish step for a repository's format with the `trove` CLI: raw and Debian upload one
 * file; Maven runs the build under a publish session (`TROVE_PUBLISH_TOKEN` in its environment).
 */
function publishCommand(repo: string, format: string, audienceFlag: string): string {
  if (format === 'maven') return `trove exec --repo ${repo} --oidc${audienceFlag} -- mvn --batch-mode deploy`;
  if (format === 'debian') return `trove upload ${repo} dist/app_1.0_amd64.deb --dist stable --component main --oidc${audienceFlag}`;
  return `trove upload ${repo} dist/app.tar.gz --oidc${audienceFlag}`;
}

/**
 * Ready-to-paste CI jobs for a trust policy: GitHub Actions asks GitHub for the identity token
 * (`id-token: write`), GitLab hands it over in `TROVE_ID_TOKEN` through `id_tokens`. The CLI's
 * audience defaults to the server's base URL, so `--audience` appears only when the policy
 * expects another one.
 */
export function ciSnippets(trust: Pick<TrustInput, 'audience' | 'repos'>, baseUrl: string, formats: Record<string, string>): CiSnippet[] {
  const repo = trust.repos[0] ?? 'REPO';
  const format = formats[repo] ?? 'raw';
  const install = `npm install -g ${baseUrl}/downloads/trove-cli.tgz`;
  const audienceFlag = trust.audience === baseUrl ? '' : ` --audience ${trust.audience}`;
  const github = [
    'name: publish',
    'on:',
    '  push:',
    "    tags: ['v*']",
    'jobs:',
    '  publish:',
    '    runs-on: ubuntu-latest',
    '    permissions:',
    '      id-token: write # lets the job ask GitHub for its identity token',
    '      contents: read',
    '    env:',
    `      TROVE_URL: ${baseUrl}`,
    '    steps:',
    '      - uses: actions/checkout@v4',
    `      - run: ${install}`,
    `      - run: ${publishCommand(repo, format, audienceFlag)}`,
  ].join('\n');
  const gitlab = [
    'publish:',
    '  image: node:20',
    '  id_tokens:',
    '    TROVE_ID_TOKEN:',
    `      aud: ${trust.audience}`,
    '  variables:',
    `    TROVE_URL: ${baseUrl}`,
    '  script:',
    `    - ${install}`,
    `    - ${publishCommand(repo, format, '')}`,
    '  rules:',
    '    - if: $CI_COMMIT_TAG',
  ].join('\n');
  return [
    { title: 'GitHub Actions: .github/workflows/publish.yml', lang: 'yaml', code: github },
    { title: 'GitLab CI: .gitlab-ci.yml', lang: 'yaml', code: gitlab },
  ];
}
