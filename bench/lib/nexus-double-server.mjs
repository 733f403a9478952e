#!/usr/bin/env node
/**
 * The mirror's Nexus double (packages/mirror/dist/testing/nexus-double.js) as a process, for
 * bench/mirror-import.mjs: repository `small` with SMALL files of 1-4 KiB and `large` with LARGE
 * files of LARGE_MB MiB each (random bytes, generated here), each download waiting DELAY_MS before
 * its body (0: none; a Nexus on a LAN takes 5-30 ms). Prints one JSON line
 * {ready, url, username, password} and stops on SIGTERM.
 * usage: node nexus-double-server.mjs SMALL LARGE LARGE_MB [DELAY_MS]
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { ROOT } from './trove.mjs';

const [small = 10000, large = 4, largeMb = 64, delayMs = 0] = process.argv.slice(2).map(Number);
const { NexusDouble } = await import(join(ROOT, 'packages/mirror/dist/testing/nexus-double.js'));
const nexus = await NexusDouble.start({ username: 'bench', password: 'bench-source-password' });
nexus.addRepo('small', 'raw').addRepo('large', 'raw');
nexus.knobs.downloadDelayMs = delayMs;
for (let i = 0; i < small; i++) nexus.put('small', `files/${Math.floor(i / 100)}/f${i}.bin`, randomBytes(1024 + (i % 4) * 1024), { uploader: 'bench' });
for (let i = 0; i < large; i++) nexus.put('large', `big/b${i}.bin`, randomBytes(largeMb * 1024 * 1024), { uploader: 'bench' });
console.log(JSON.stringify({ ready: true, url: nexus.url, username: nexus.username, password: nexus.password }));
const stop = async () => {
  await nexus.close();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
