import { run } from './proc.mjs';

/**
 * One wrk run pinned to core 1 (the server is on core 0). Keep-alive is wrk's default.
 * Resolves {rps, p50ms, p99ms, requests, errors, non2xx}.
 */
export async function wrk(url, { seconds = 5, connections = 32, threads = 1, headers = {}, cpu = '1' } = {}) {
  const args = ['-c', cpu, 'wrk', `-t${threads}`, `-c${connections}`, `-d${seconds}s`, '--latency'];
  for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}: ${v}`);
  args.push(url);
  const r = await run('taskset', args);
  if (r.code !== 0) throw new Error(`wrk failed: ${r.stderr || r.stdout}`);
  // A run in which not one request completed means the server stalled: an error, not a figure.
  if (!/(\d+) requests in/.exec(r.stdout) || /\b0 requests in/.test(r.stdout)) throw new Error(`wrk: no request completed against ${url}:\n${r.stdout}`);
  const out = r.stdout;
  const num = (re) => {
    const m = re.exec(out);
    return m ? Number(m[1]) : 0;
  };
  const ms = (re) => {
    const m = re.exec(out);
    if (!m) return NaN;
    const v = Number(m[1]);
    return m[2] === 'us' ? v / 1000 : m[2] === 's' ? v * 1000 : v;
  };
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  return {
    rps: num(/Requests\/sec:\s+([\d.]+)/),
    requests: num(/(\d+) requests in/),
    non2xx: num(/Non-2xx or 3xx responses: (\d+)/),
    errors: socket ? socket.slice(1).reduce((a, b) => a + Number(b), 0) : 0,
    p50ms: ms(/50%\s+([\d.]+)(us|ms|s)/),
    p99ms: ms(/99%\s+([\d.]+)(us|ms|s)/),
  };
}
