import { crc32 } from 'node:zlib';

/**
 * Splicing of xz files at block level (xz file format 1.2.0, tukaani.org/xz/xz-file-format.txt).
 *
 * Why not concatenated xz streams: the format allows them and `xz -d` reads them, but apt's
 * FileFd (apt 2.6, Debian 12) stops after the first stream, so apt would silently see only the
 * first segment of a Packages.xz built that way (`apt-helper cat-file` shows it). A single stream
 * whose blocks were compressed independently is what `xz -T` writes and every decoder reads, and
 * its container (header, index, footer) is a few dozen bytes we can rewrite without touching the
 * compressed data. xz-utils does the compressing; this file only moves its blocks around.
 */

const HEADER_MAGIC = Buffer.from([0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]);
const FOOTER_MAGIC = Buffer.from('YZ', 'latin1');
/** Stream flags for CRC64 checks, the check every segment is compressed with (`xz --check=crc64`). */
const FLAGS = Buffer.from([0x00, 0x04]);

export class XzFormatError extends Error {}

/** The blocks of one compressed segment, ready to be placed into a larger stream. */
export interface XzBlocks {
  /** The blocks with their padding, exactly as they sit in a stream. */
  blocks: Buffer;
  /** The index records of those blocks (unpadded size, uncompressed size as xz varints). */
  records: Buffer;
  count: number;
}

function u32le(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n >>> 0);
  return b;
}

function varint(n: number): Buffer {
  const out: number[] = [];
  while (n >= 0x80) {
    out.push((n % 0x80) | 0x80);
    n = Math.floor(n / 0x80);
  }
  out.push(n);
  return Buffer.from(out);
}

function readVarint(buf: Buffer, pos: number): [number, number] {
  let n = 0;
  for (let i = 0, mul = 1; i < 9; i++, mul *= 0x80) {
    const b = buf[pos + i];
    if (b === undefined) throw new XzFormatError('truncated index');
    n += (b & 0x7f) * mul;
    if (!(b & 0x80)) return [n, pos + i + 1];
  }
  throw new XzFormatError('index varint too long');
}

const pad4 = (n: number) => (4 - (n % 4)) % 4;

/** Takes apart one single-stream .xz file (as `xz --check=crc64` writes it) into its blocks and index records. */
export function xzBlocks(file: Buffer): XzBlocks {
  if (file.length < 32 || !file.subarray(0, 6).equals(HEADER_MAGIC) || !file.subarray(file.length - 2).equals(FOOTER_MAGIC)) throw new XzFormatError('not an xz stream');
  if (!file.subarray(6, 8).equals(FLAGS) || !file.subarray(file.length - 4, file.length - 2).equals(FLAGS)) throw new XzFormatError('xz stream does not use CRC64 checks');
  const indexSize = (file.readUInt32LE(file.length - 8) + 1) * 4;
  const indexStart = file.length - 12 - indexSize;
  if (indexStart < 12) throw new XzFormatError('xz index out of range');
  const index = file.subarray(indexStart, indexStart + indexSize);
  if (index[0] !== 0x00 || crc32(index.subarray(0, indexSize - 4)) !== index.readUInt32LE(indexSize - 4)) throw new XzFormatError('bad xz index');
  let [count, pos] = readVarint(index, 1);
  const recordsStart = pos;
  let padded = 0;
  for (let i = 0; i < count; i++) {
    let unpadded: number;
    [unpadded, pos] = readVarint(index, pos);
    [, pos] = readVarint(index, pos);
    padded += unpadded + pad4(unpadded);
  }
  if (padded !== indexStart - 12) throw new XzFormatError('xz index does not match its blocks');
  return { blocks: file.subarray(12, indexStart), records: index.subarray(recordsStart, pos), count };
}

/** One .xz stream holding the given blocks in order: apt and xz read it as the concatenation of their contents. */
export function xzStream(parts: XzBlocks[]): Buffer {
  const count = parts.reduce((n, p) => n + p.count, 0);
  const body = Buffer.concat([Buffer.from([0x00]), varint(count), ...parts.map((p) => p.records)]);
  const unpaddedIndex = Buffer.concat([body, Buffer.alloc(pad4(body.length))]);
  const index = Buffer.concat([unpaddedIndex, u32le(crc32(unpaddedIndex))]);
  const header = Buffer.concat([HEADER_MAGIC, FLAGS, u32le(crc32(FLAGS))]);
  const backward = Buffer.concat([u32le(index.length / 4 - 1), FLAGS]);
  const footer = Buffer.concat([u32le(crc32(backward)), backward, FOOTER_MAGIC]);
  return Buffer.concat([header, ...parts.map((p) => p.blocks), index, footer]);
}
