import { knownServers } from './config.js';
import { CliError } from './errors.js';

/** A server's base URL in one canonical form: http(s), no credentials, query or trailing slash. */
export function normalizeUrl(input: string): string {
  let u: URL;
  try {
    u = new URL(input);
  } catch {
    throw new CliError(`not a URL: ${input} (expected e.g. https://trove.example.com)`, 2);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new CliError(`not an http(s) URL: ${input}`, 2);
  if (u.username || u.password) throw new CliError('the server URL must not carry credentials', 2);
  if (u.search || u.hash) throw new CliError(`the server URL must not carry a query or fragment: ${input}`, 2);
  return u.origin + u.pathname.replace(/\/+$/, '');
}

/** `--url`, else `$TROVE_URL`, else the only server logged in to. */
export function resolveUrl(flag: string | undefined): string {
  if (flag) return normalizeUrl(flag);
  if (process.env.TROVE_URL) return normalizeUrl(process.env.TROVE_URL);
  const known = knownServers();
  if (known.length === 1) return known[0]!;
  if (known.length === 0) throw new CliError('no server: pass --url URL, set TROVE_URL, or run `trove login URL` first');
  throw new CliError(`logged in to several servers (${known.join(', ')}); choose one with --url or TROVE_URL`);
}
