import { spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { hostname } from 'node:os';
import { parse } from '../args.js';
import { saveDevice } from '../config.js';
import { CliError, usage } from '../errors.js';
import { api, retryAfter, serverMessage } from '../http.js';
import { normalizeUrl, resolveUrl } from '../server-url.js';

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

/** Opens the approval page where a browser can run; a failure is harmless (the URL was printed). */
function openBrowser(url: string): void {
  const graphical = process.platform === 'darwin' || process.platform === 'win32' || !!process.env.DISPLAY || !!process.env.WAYLAND_DISPLAY;
  if (!graphical) return;
  const [cmd, args] =
    process.platform === 'darwin' ? ['open', [url]] : process.platform === 'win32' ? ['cmd', ['/c', 'start', '""', url]] : ['xdg-open', [url]];
  try {
    const child = spawn(cmd as string, args as string[], { stdio: 'ignore', detached: true });
    child.on('error', () => {});
    child.unref();
  } catch {
    // no opener: the printed URL is enough
  }
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
  const { device_code, user_code, verification_url } = en.body as { device_code: string; user_code: string; verification_url: string };
  const expiresIn = Number(en.body.expires_in) > 0 ? Number(en.body.expires_in) : 600;
  let interval = Number(en.body.interval) > 0 ? Number(en.body.interval) : 5;

  process.stderr.write(`To approve this device, open ${verification_url} and confirm the code ${user_code} (valid ${Math.round(expiresIn / 60)} minutes).\n`);
  if (!values['no-browser']) openBrowser(verification_url);

  const deadline = Date.now() + expiresIn * 1000;
  for (;;) {
    await sleep(interval * 1000);
    const p = await api(url, '/api/devices/enroll/poll', { body: { device_code } });
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
      console.log(`Logged in to ${url} as device "${record.name}" (${record.device_id})${until}.`);
      return 0;
    }
    const code = typeof p.body?.error === 'string' ? (p.body.error as string) : '';
    if (p.status === 400 && code === 'authorization_pending') {
      if (Date.now() > deadline + interval * 1000) throw new CliError(`the code ${user_code} expired before it was approved; run \`trove login ${url}\` again`);
      continue;
    }
    if (p.status === 400 && code === 'slow_down') {
      interval += 5; // RFC 8628 section 3.5
      continue;
    }
    if (p.status === 400 && code === 'expired_token') throw new CliError(`the code ${user_code} expired before it was approved; run \`trove login ${url}\` again`);
    if (p.status === 400 && code === 'access_denied') throw new CliError(`the enrollment of "${name}" was refused`);
    if (p.status === 429) {
      interval += 5;
      continue;
    }
    throw new CliError(`enrollment failed: ${serverMessage(p)}`);
  }
}
