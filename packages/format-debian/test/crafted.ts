import { execFileSync } from 'node:child_process';
import { gzipSync } from 'node:zlib';
import { pack } from 'tar-stream';

/** An `ar` archive from raw members (deb(5) layout), for handcrafted bad packages. */
export function arArchive(members: [string, Buffer][], opts: { lieAboutSize?: number } = {}): Buffer {
  const parts: Buffer[] = [Buffer.from('!<arch>\n')];
  for (const [name, data] of members) {
    const size = opts.lieAboutSize ?? data.length;
    const header = `${name.padEnd(16)}${'0'.padEnd(12)}${'0'.padEnd(6)}${'0'.padEnd(6)}${'100644'.padEnd(8)}${String(size).padEnd(10)}\`\n`;
    parts.push(Buffer.from(header, 'latin1'), data);
    if (data.length % 2) parts.push(Buffer.from('\n'));
  }
  return Buffer.concat(parts);
}

/** A tar with the given files (name → content). */
export async function tarOf(files: [string, Buffer][]): Promise<Buffer> {
  const p = pack();
  const chunks: Buffer[] = [];
  p.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise((r) => p.on('end', r));
  for (const [name, content] of files) {
    await new Promise<void>((resolve, reject) => p.entry({ name, size: content.length }, content, (err) => (err ? reject(err) : resolve())));
  }
  p.finalize();
  await done;
  return Buffer.concat(chunks);
}

export const xzOf = (b: Buffer) => execFileSync('xz', ['-c', '-1'], { input: b, maxBuffer: 1 << 30 });
export const zstdOf = (b: Buffer) => execFileSync('zstd', ['-c', '-q'], { input: b, maxBuffer: 1 << 30 });
/** zstd with a 1 GiB window (size unknown on a pipe, so the window stays large). */
export const zstdHugeWindow = (b: Buffer) => execFileSync('zstd', ['-c', '-q', '--long=30'], { input: b, maxBuffer: 1 << 30 });

export const CONTROL = Buffer.from('Package: crafted\nVersion: 1.0\nArchitecture: amd64\nMaintainer: x <x@example.test>\nDescription: crafted\n');

/** A .deb around a given control member. */
export function debWith(controlName: string, control: Buffer): Buffer {
  return arArchive([
    ['debian-binary', Buffer.from('2.0\n')],
    [controlName, control],
    ['data.tar.gz', gzipSync(Buffer.alloc(1024))],
  ]);
}
