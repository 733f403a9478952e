import { parse, sessionOptions } from '../args.js';
import { usage } from '../errors.js';
import { resolveUrl } from '../server-url.js';
import { openSession } from '../session.js';
import { say } from '../terminal.js';

export const sessionHelp = `Usage: trove session REPO [--url URL] [--oidc [--audience AUD]] [--json]

Opens a publish session for the repository REPO and prints only its token on stdout:

  export TROVE_PUBLISH_TOKEN=$(trove session releases)

The token is the HTTP Basic password (any user name) for uploads to REPO until it expires
(publish.session_ttl, 15 minutes by default). Prefer \`trove exec\`, which also closes it.

Options:
  --url URL        the server (default: $TROVE_URL, else the only server logged in to)
  --oidc           prove identity with the CI identity token instead of this device's key:
                   $TROVE_ID_TOKEN, or GitHub Actions' ACTIONS_ID_TOKEN_REQUEST_URL/TOKEN
  --audience AUD   the audience to ask GitHub Actions for (default: the server's URL)
  --json           print the whole answer: {id, token, repo, format, expires_at}`;

export async function session(argv: string[]): Promise<number> {
  const { values, positionals } = parse('session', argv, { ...sessionOptions, json: { type: 'boolean' } });
  if (values.help) return (console.log(sessionHelp), 0);
  if (positionals.length !== 1) throw usage('session', positionals.length ? 'too many arguments' : 'REPO is required');
  const url = resolveUrl(values.url);
  const s = await openSession({ url, repo: positionals[0]!, oidc: values.oidc, audience: values.audience });
  say(values.json ? JSON.stringify(s) : s.token);
  return 0;
}
