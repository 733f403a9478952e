import { spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { hostname } from 'node:os';
import { parse } from '../args.js';
import { saveDevice } from '../config.js';
import { CliError, usage } from '../errors.js';
import { api, NetworkError, retryAfter, serverMessage, type Answer } from '../http.js';
import { normalizeUrl, resolveUrl } from '../server-url.js';
import { say, tell } from '../terminal.js';

export const loginHelp = `Usage: trove login URL [--name NAME] [--kind gradle|maven] [--no-browser]

Enrolls this machine as a publishing device of the Trove server at URL: makes an Ed25519
key, asks the server to enroll it, and prints the page and the code to approve it with
(your second factor, in the web UI). Waits for the approval, then stores the device id.

The private key stays in $TROVE_CONFIG_DIR (default ~/.config/trove), one directory per
server (0700, files 0600). Logging in again replaces the server's key on this machine.

Options:
  --name NAME      device name shown in the web UI (default: this host's name)
  --kind KIND      gradle or maven (default: gradle)
  --no-browser     do not open the approval page in a browser
  --url URL        the server, when URL is not given as an argument

Exit status: 0 once approved; 1 when the code expires or the enrollment is refused.`;

/**
 * The approval page to open: only an http(s) page of the server the user named. The server
 * chooses `verification_url`; another origin could be a look-alike asking for the second
 * factor, and another scheme (file:, javascript:, a custom handler) runs something locally.
 */
export function approvalPage(verificationUrl: string, server: string): string | null {
  let u: URL;
  try {
    u = new URL(verificationUrl);
  } catch {
    return null;
  }
  if ((u.protocol !== 'http:' && u.protocol !== 'https:') || u.origin !== new URL(server).origin || u.username || u.password) return null;
  return u.href;
}

/**
 * Opens `page` (from approvalPage) where a browser can run; a failure is harmless (the URL was printed).
 * No shell sees it: `cmd /c start` would run whatever follows an `&` in a URL, so Windows gets
 * rundll32's URL handler, which takes the URL as one argument.
 */
function openBrowser(page: string): void {
  const graphical = process.platform === 'darwin' || process.platform === 'win32' || !!process.env.DISPLAY || !!process.env.WAYLAND_DISPLAY;
  if (!graphical) return;
  const [cmd, args] =
    process.platform === 'darwin'
      ? ['open', [page]]
      : process.platform === 'win32'
        ? ['rundll32.exe', ['url.dll,FileProtocolHandler', page]]
        : ['xdg-open', [page]];
  try {
    const child = spawn(cmd as string, args as string[], { stdio: 'ignore', detached: true });
    child.on('error', () => {});
    child.unref();
  } catch {
    // no opener: the printed URL is enough
  }
}

interface Enrollment {
  device_code: string;
  user_code: string;
  verification_url: string;
  expires_in: number;
  interval: number;
}

/** SPEC's enrollment answer, or null: an HTML page, an empty 200 or any other JSON is not one. */
function enrollment(body: unknown): Enrollment | null {
  const b = body as Partial<Record<keyof Enrollment, unknown>> | null;
  if (!b || typeof b !== 'object') return null;
  const text = (v: unknown) => typeof v === 'string' && v.length > 0 && v.length <= 2000;
  // Bounded too: a timer beyond 2^31 ms fires at once, which would turn the poll into a busy loop.
  const seconds = (v: unknown, max: number) => typeof v === 'number' && Number.isFinite(v) && v > 0 && v <= max;
  if (!text(b.device_code) || !text(b.user_code) || !text(b.verification_url)) return null;
  if (!seconds(b.expires_in, 86_400) || !seconds(b.interval, 3600)) return null;
  return b as Enrollment;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function login(argv: string[]): Promise<number> {
  const { values, positionals } = parse('login', argv, {
    name: { type: 'string' },
    kind: { type: 'string' },
    'no-browser': { type: 'boolean' },
    url: { type: 'string' },
  });
  if (values.help) return (console.log(loginHelp), 0);
  if (positionals.length > 1) throw usage('login', 'too many arguments');
  const url = positionals[0] ? normalizeUrl(positionals[0]) : resolveUrl(values.url);
  const kind = values.kind ?? 'gradle';
  if (kind !== 'gradle' && kind !== 'maven') throw usage('login', '--kind must be gradle or maven');
  const name = (values.name ?? hostname()).trim().slice(0, 100) || 'trove-cli';

  // Encoded at generation: Node 20's KeyObject JWK export can deadlock when a GC runs inside it
  // (seen here: ExportJWKEdKey -> GC -> ~KeyGenJob waits on the mutex the export holds).
  const { publicKey, privateKey } = generateKeyPairSync('ed25519', {
    publicKeyEncoding: { type: 'spki', format: 'der' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  // An Ed25519 SPKI is a fixed 12-byte header followed by the raw 32-byte key (RFC 8410).
  const rawPublic = publicKey.subarray(-32).toString('base64url');
  const en = await api(url, '/api/devices/enroll', { body: { name, kind, public_key: rawPublic } });
  if (en.status === 429) throw new CliError(`${url} refused more enrollments from this address for now${retryAfter(en)}`);
  if (en.status !== 200) throw new CliError(`${url} refused the enrollment: ${serverMessage(en)}`);
  const e = enrollment(en.body);
  if (!e) throw new CliError(`${url} does not look like a Trove server: its answer to POST /api/devices/enroll is not an enrollment`);
  const { device_code, user_code, verification_url } = e;
  let interval = e.interval;

  tell(`To approve this device, open ${verification_url} and confirm the code ${user_code} (valid ${Math.round(e.expires_in / 60)} minutes).`);
  const page = approvalPage(verification_url, url);
  if (!page) tell(`trove: not opening the approval page: it is not a page of ${url}; check it before you open it yourself`);
  else if (!values['no-browser']) openBrowser(page);

  const deadline = Date.now() + e.expires_in * 1000;
  const expired = (why: string) =>
    new CliError(`the code ${user_code} expired before it was approved; run \`trove login ${url}\` again${why ? ` (the last poll: ${why})` : ''}`);
  // Unanswered or 5xx polls are retried until the code expires, the wait doubling with each failure in a row
  // (RFC 8628 section 3.5): a restarting server or a dropped connection must not end a login the user may still approve.
  let failures = 0;
  let problem = '';
  for (;;) {
    await sleep(Math.max(interval, Math.min(interval * 2 ** failures, 60)) * 1000);
    let p: Answer;
    try {
      p = await api(url, '/api/devices/enroll/poll', { body: { device_code } });
    } catch (err) {
      if (!(err instanceof NetworkError)) throw err;
      if (!failures++) tell(`trove: ${err.message}; still waiting for the approval`);
      problem = err.message;
      if (Date.now() > deadline) throw expired(problem);
      continue;
    }
    if (p.status >= 500) {
      problem = `${url} answered ${p.status} (${serverMessage(p)})`;
      if (!failures++) tell(`trove: ${problem}; still waiting for the approval`);
      if (Date.now() > deadline) throw expired(problem);
      continue;
    }
    failures = 0;
    problem = '';
    if (p.status === 200 && typeof p.body?.device_id === 'string') {
      const record = {
        url,
        device_id: p.body.device_id as string,
        name: typeof p.body.name === 'string' ? p.body.name : name,
        kind,
        public_key: rawPublic,
        expires_at: typeof p.body.expires_at === 'string' ? p.body.expires_at : null,
        enrolled_at: new Date().toISOString(),
      };
      saveDevice(record, privateKey);
      const until = record.expires_at ? `, valid until ${record.expires_at}` : '';
      say(`Logged in to ${url} as device "${record.name}" (${record.device_id})${until}.`);
      return 0;
    }
    const code = typeof p.body?.error === 'string' ? (p.body.error as string) : '';
    if (p.status === 400 && code === 'authorization_pending') {
      if (Date.now() > deadline + interval * 1000) throw expired('');
      continue;
    }
    if (p.status === 400 && code === 'slow_down') {
      interval += 5; // RFC 8628 section 3.5
      continue;
    }
    if (p.status === 400 && code === 'expired_token') throw expired('');
    if (p.status === 400 && code === 'access_denied') throw new CliError(`the enrollment of "${name}" was refused`);
    if (p.status === 429) {
      interval += 5;
      continue;
    }
    throw new CliError(`enrollment failed: ${serverMessage(p)}`);
  }
}
