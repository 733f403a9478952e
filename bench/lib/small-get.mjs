import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { basicAuth, createRawRepo } from './trove.mjs';
import { publishSession } from './publish.mjs';

/** The small files W1/W2 fetch: the low and high end of BENCH.md's 1-10 KB. */
export const SMALL_FILES = [
  { name: 'small-1k.txt', bytes: 1024 },
  { name: 'small-10k.txt', bytes: 10 * 1024 },
];

function content(bytes) {
  const line = 'trove benchmark payload, plain text so nothing compresses it on the way. \n';
  return line.repeat(Math.ceil(bytes / line.length)).slice(0, bytes);
}

/**
 * Writes the files into `dir` (for the references) and uploads the same bytes to `repo` on Trove.
 * Resolves the publish session token it uploaded with (W2 reads with it too).
 */
export async function publishSmallFiles(trove, dir, repo, { anonymousRead }) {
  await createRawRepo(trove.url, repo, { anonymousRead });
  const token = await publishSession(trove.url, repo);
  for (const f of SMALL_FILES) {
    const body = content(f.bytes);
    writeFileSync(join(dir, f.name), body);
    const res = await fetch(`${trove.url}/raw/${repo}/${f.name}`, { method: 'PUT', headers: { Authorization: basicAuth('ci', token) }, body });
    if (res.status !== 201) throw new Error(`upload ${f.name}: ${res.status} ${await res.text()}`);
  }
  return token;
}
