import { parse } from '../args.js';
import { loadDevice, updateDevice } from '../config.js';
import { CliError, usage } from '../errors.js';
import { api, serverMessage } from '../http.js';
import { resolveUrl } from '../server-url.js';
import { say } from '../terminal.js';

export const statusHelp = `Usage: trove status [--url URL] [--json]

Shows the server, this machine's device id and name, and when the device expires
(publish.device_ttl after approval; then run \`trove login\` again). The server is asked
for the device's current record, so a revoked or expired device shows as such.

Options:
  --url URL   the server (default: $TROVE_URL, else the only server logged in to)
  --json      print {server, device_id, name, kind, expires_at, state} as JSON

state is "active", "revoked or expired", or "unknown" when the server cannot be reached.`;

export async function status(argv: string[]): Promise<number> {
  const { values, positionals } = parse('status', argv, { url: { type: 'string' }, json: { type: 'boolean' } });
  if (values.help) return (console.log(statusHelp), 0);
  if (positionals.length) throw usage('status', 'status takes no arguments');
  const url = resolveUrl(values.url);
  const device = loadDevice(url);
  if (!device) throw new CliError(`not logged in to ${url}: run \`trove login ${url}\``);
  let { record } = device;
  let state = 'unknown';
  let note = '';
  try {
    // The challenge answer carries the device's own record (docs/publishing.md, "trove status");
    // the nonce it also carries is left to expire unused.
    const a = await api(url, '/api/publish/challenge', { body: { device_id: record.device_id } });
    if (a.status === 200) {
      state = 'active';
      if (typeof a.body?.expires_at === 'string') {
        record = { ...record, name: String(a.body.name ?? record.name), kind: String(a.body.kind ?? record.kind), expires_at: a.body.expires_at };
        updateDevice(record);
      }
    } else if (a.status === 404) {
      state = 'revoked or expired';
    } else {
      note = serverMessage(a);
    }
  } catch (e) {
    note = (e as Error).message;
  }
  const out = { server: url, device_id: record.device_id, name: record.name, kind: record.kind, expires_at: record.expires_at, state };
  if (values.json) {
    say(JSON.stringify(out));
  } else {
    say(
      [
        `server:      ${url}`,
        `device:      ${record.name} (${record.device_id})`,
        `kind:        ${record.kind}`,
        `expires at:  ${record.expires_at ?? 'unknown'}`,
        `state:       ${state}${note ? ` (${note})` : ''}`,
      ].join('\n'),
    );
    if (state === 'revoked or expired') say(`Run \`trove login ${url}\` to enroll this machine again.`);
  }
  return 0;
}
