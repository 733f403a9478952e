import { CliError } from './errors.js';
import { networkMessage, readCapped } from './http.js';

/**
 * The CI identity token: `$TROVE_ID_TOKEN` (GitLab `id_tokens`, or any CI that hands one
 * over), else GitHub Actions' token request URL with the audience (`permissions: id-token: write`).
 */
export async function identityToken(audience: string): Promise<string> {
  const given = process.env.TROVE_ID_TOKEN?.trim();
  if (given) return given;
  const requestUrl = process.env.ACTIONS_ID_TOKEN_REQUEST_URL;
  const requestToken = process.env.ACTIONS_ID_TOKEN_REQUEST_TOKEN;
  if (!requestUrl || !requestToken) {
    throw new CliError(
      '--oidc needs a CI identity token: set TROVE_ID_TOKEN (GitLab: id_tokens), or run in GitHub Actions with `permissions: id-token: write`',
    );
  }
  let url: URL;
  try {
    url = new URL(requestUrl);
  } catch {
    throw new CliError('ACTIONS_ID_TOKEN_REQUEST_URL is not a URL');
  }
  url.searchParams.set('audience', audience);
  let res: Response;
  let text: string;
  try {
    res = await fetch(url, { headers: { authorization: `bearer ${requestToken}`, accept: 'application/json' }, signal: AbortSignal.timeout(30_000) });
    // Capped like every answer, and read inside the try: a slow body times out into a message.
    text = await readCapped(res, url.origin, 'the identity token request');
  } catch (e) {
    if (e instanceof CliError) throw e;
    throw new CliError(networkMessage(url.origin, e));
  }
  let value: unknown;
  try {
    value = (JSON.parse(text) as { value?: unknown }).value;
  } catch {
    value = undefined;
  }
  if (!res.ok || typeof value !== 'string' || !value) {
    throw new CliError(`GitHub Actions refused an identity token (HTTP ${res.status}); does the job have \`permissions: id-token: write\`?`);
  }
  return value;
}
