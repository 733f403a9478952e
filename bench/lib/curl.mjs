import { runOk } from './proc.mjs';

const WRITE_OUT = '%{http_code} %{size_download} %{size_upload} %{time_total}';

function parse(stdout) {
  const [status, down, up, seconds] = stdout.trim().split(/\s+/).slice(-4);
  return { status: Number(status), downloaded: Number(down), uploaded: Number(up), seconds: Number(seconds) };
}

/** Downloads `url` to /dev/null with curl pinned to core 1. Options: limitRate ("20M"), headers. */
export async function curlDownload(url, { limitRate, headers = {}, cpu = '1' } = {}) {
  const args = ['-c', cpu, 'curl', '-sS', '-o', '/dev/null', '-w', WRITE_OUT];
  if (limitRate) args.push('--limit-rate', limitRate);
  for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}: ${v}`);
  args.push(url);
  return parse((await runOk('taskset', args)).stdout);
}

/** Uploads `file` with `curl -T` (Content-Length), or chunked when `chunked` is set. Resolves with the answer body too. */
export async function curlUpload(url, file, { chunked = false, headers = {}, cpu = '1' } = {}) {
  const args = ['-c', cpu, 'curl', '-sS', '-T', file, '-w', `\n${WRITE_OUT}`];
  if (chunked) args.push('-H', 'Transfer-Encoding: chunked');
  for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}: ${v}`);
  args.push(url);
  const { stdout } = await runOk('taskset', args);
  const nl = stdout.lastIndexOf('\n');
  return { ...parse(stdout.slice(nl + 1)), body: stdout.slice(0, nl) };
}
