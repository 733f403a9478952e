import type { FileHandle } from 'node:fs/promises';

/** A member of an `ar` archive: where its bytes are in the file. */
export interface ArMember {
  name: string;
  offset: number;
  size: number;
}

export class ArchiveError extends Error {}

const MAGIC = '!<arch>\n';
const HEADER = 60;

/**
 * Lists the first `limit` members of an `ar` archive (the container of a .deb, see deb(5))
 * by reading their 60-byte headers at known offsets; member data is never read here.
 * The format is a fixed-width header per member; no maintained npm reader exists.
 */
export async function listArMembers(fh: FileHandle, fileSize: number, limit: number): Promise<ArMember[]> {
  const magic = Buffer.alloc(8);
  await fh.read(magic, 0, 8, 0);
  if (magic.toString('latin1') !== MAGIC) throw new ArchiveError('not a Debian package: missing ar signature');
  const members: ArMember[] = [];
  let pos = 8;
  const header = Buffer.alloc(HEADER);
  while (members.length < limit && pos < fileSize) {
    if (pos + HEADER > fileSize) throw new ArchiveError('truncated ar member header');
    await fh.read(header, 0, HEADER, pos);
    if (header.toString('latin1', 58, 60) !== '`\n') throw new ArchiveError('corrupt ar member header');
    // GNU ar ends names with '/', BSD-style and dpkg-deb pad with spaces.
    const name = header.toString('latin1', 0, 16).trimEnd().replace(/\/$/, '');
    const sizeText = header.toString('latin1', 48, 58).trim();
    if (!/^\d{1,10}$/.test(sizeText)) throw new ArchiveError('corrupt ar member size');
    const size = Number(sizeText);
    const offset = pos + HEADER;
    if (offset + size > fileSize) throw new ArchiveError(`ar member ${name} extends past the end of the file`);
    members.push({ name, offset, size });
    pos = offset + size + (size % 2); // members are 2-byte aligned
  }
  return members;
}
