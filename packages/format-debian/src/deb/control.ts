import { open } from 'node:fs/promises';
import { createReadStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { listArMembers, ArchiveError } from './ar.js';
import { ByteLimit, decompressorFor } from './decompress.js';

/** Bounds on what an upload may make the server read and hold (a control.tar is normally a few KiB). */
export const CONTROL_LIMITS = {
  /** Compressed control member. */
  member: 4 * 1024 * 1024,
  /** The control tar after decompression: larger means a bomb. */
  tar: 16 * 1024 * 1024,
  /** The `control` file itself, held in memory. */
  file: 1024 * 1024,
};

/**
 * Returns the text of the `control` file inside a .deb on disk: checks the `ar` layout,
 * then streams the control member through its decompressor and tar-stream with a byte cap
 * at every stage. Anything malformed throws ArchiveError (answered as 400).
 */
export async function readControlFile(path: string, size: number): Promise<string> {
  const fh = await open(path, 'r');
  let member;
  try {
    const members = await listArMembers(fh, size, 3);
    const first = members[0];
    if (!first || first.name !== 'debian-binary') throw new ArchiveError('not a Debian package: debian-binary must be the first member');
    const version = Buffer.alloc(Math.min(first.size, 16));
    await fh.read(version, 0, version.length, first.offset);
    if (!/^2\.\d+\n/.test(version.toString('latin1'))) throw new ArchiveError('unsupported Debian package format version');
    member = members.slice(1).find((m) => m.name.startsWith('control.tar'));
    if (!member) throw new ArchiveError('the package has no control.tar member');
  } finally {
    await fh.close();
  }
  const suffix = member.name.slice('control.tar'.length);
  if (member.size > CONTROL_LIMITS.member) throw new ArchiveError(`control member is larger than ${CONTROL_LIMITS.member} bytes`);
  if (member.size === 0) throw new ArchiveError('control member is empty');

  // Loaded with the first upload, not at start.
  const { extract } = await import('tar-stream');
  // Every await comes before the file stream exists: a stream opened and then left unconsumed (an
  // unsupported compression refused here) fails its open once the caller has removed the spool file,
  // and an error on a stream nobody listens to would end the process.
  const decompressor = await decompressorFor(suffix, CONTROL_LIMITS.tar, 'decompressed control member');
  const source = createReadStream(path, { start: member.offset, end: member.offset + member.size - 1 });
  source.on('error', () => {}); // pipeline() reports its errors; this one only silences an open failing after a destroy
  const tar = extract();
  // pipeline() destroys every stage with the first error; streamx re-emits it, after pipeline stopped listening.
  tar.on('error', () => {});
  let control: Buffer | null = null;
  let failure: Error | null = null;
  tar.on('entry', (header, stream, next) => {
    stream.on('error', () => {}); // destroyed with the pipeline's error, which pipeline() reports
    const name = header.name.replace(/^\.\//, '');
    if (name === 'control' && (header.type === 'file' || header.type === 'contiguous-file')) {
      if ((header.size ?? 0) > CONTROL_LIMITS.file) {
        failure = new ArchiveError(`control file is larger than ${CONTROL_LIMITS.file} bytes`);
        stream.resume();
        stream.on('end', next);
        return;
      }
      const parts: Buffer[] = [];
      stream.on('data', (d: unknown) => parts.push(d as Buffer));
      stream.on('end', () => {
        control = Buffer.concat(parts);
        next();
      });
      return;
    }
    stream.on('end', next);
    stream.resume();
  });
  try {
    await pipeline(source, decompressor as any, new ByteLimit(CONTROL_LIMITS.tar, 'decompressed control member'), tar);
  } catch (err) {
    if (err instanceof ArchiveError) throw err;
    throw new ArchiveError(`unreadable control member ${member.name}: ${(err as Error).message}`);
  } finally {
    source.destroy();
  }
  if (failure) throw failure;
  if (!control) throw new ArchiveError('the control member has no control file');
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(control);
  } catch {
    throw new ArchiveError('the control file is not valid UTF-8');
  }
}
