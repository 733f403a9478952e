import { describe, expect, it } from 'vitest';
import { ciSnippets } from './ci-snippets';

const BASE = 'https://repo.example.com';

describe('CI snippets for a trust policy', () => {
  it('installs the CLI from the server and uploads to the first repository with --oidc', () => {
    const [github, gitlab] = ciSnippets({ audience: BASE, repos: ['releases', 'other'] }, BASE, { releases: 'raw' });
    expect(github!.code).toContain(`npm install -g ${BASE}/downloads/trove-cli.tgz`);
    expect(github!.code).toContain('id-token: write');
    expect(github!.code).toContain('trove upload releases dist/app.tar.gz --oidc\n'.trimEnd());
    expect(github!.code).not.toContain('--audience'); // the CLI's default audience is the base URL
    expect(gitlab!.code).toContain(`aud: ${BASE}`);
    expect(gitlab!.code).toContain('TROVE_ID_TOKEN:');
  });

  it('names a different audience for GitHub, and runs Maven under a session', () => {
    const [github, gitlab] = ciSnippets({ audience: 'trove-ci', repos: ['libs'] }, BASE, { libs: 'maven' });
    expect(github!.code).toContain('trove exec --repo libs --oidc --audience trove-ci -- mvn --batch-mode deploy');
    expect(gitlab!.code).toContain('trove exec --repo libs --oidc -- mvn --batch-mode deploy');
    expect(gitlab!.code).toContain('aud: trove-ci');
  });

  it('uploads a .deb to a distribution of a Debian repository', () => {
    const [github] = ciSnippets({ audience: BASE, repos: ['apt'] }, BASE, { apt: 'debian' });
    expect(github!.code).toContain('trove upload apt dist/app_1.0_amd64.deb --dist stable --component main --oidc');
  });
});
