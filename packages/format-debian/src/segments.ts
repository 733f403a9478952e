import { availableParallelism } from 'node:os';
import { gzip, mapLimit, xz } from './compress.js';
import { xzBlocks, xzStream, type XzBlocks } from './xz-stream.js';

/**
 * Segmented index units. A unit's Packages file is its packages in (package, version, architecture)
 * order, cut into segments of about SEGMENT_BYTES. Each segment keeps its text, its own gzip member
 * and its own xz blocks, so an upload recompresses one segment (tens of KiB), not the unit (MiBs):
 *   Packages    = the segment texts joined
 *   Packages.gz = the gzip members joined (RFC 1952 allows several members; zlib and apt read them all)
 *   Packages.xz = one xz stream holding every segment's blocks (see xz-stream.ts for why not several streams)
 * Every paragraph ends with its blank line, so segment texts join without separators.
 */

/** (package, version, architecture): the order of a Packages file and the key segments are cut on. */
export type SegmentKey = readonly [pkg: string, version: string, arch: string];
/** The first segment of a unit always starts here, so every key falls in some segment. */
export const FIRST_KEY: SegmentKey = ['', '', ''];

/**
 * Bytes of Packages text a segment aims at. Smaller makes an upload cheaper (xz -6 runs at a few
 * MB/s) but compresses worse and multiplies rows; 64 KiB is a few hundred typical paragraphs,
 * recompressed in tens of milliseconds, and costs Packages.xz a few percent against one block.
 */
export const SEGMENT_BYTES = 64 * 1024;
/** A rebuilt segment larger than this is split into pieces of about SEGMENT_BYTES. */
const SPLIT_ABOVE = 2 * SEGMENT_BYTES;
/** A rebuilt segment smaller than this joins its right neighbour (only shrinking units make them). */
const MERGE_BELOW = SEGMENT_BYTES / 4;

export function compareKeys(a: SegmentKey, b: SegmentKey): number {
  for (let i = 0; i < 3; i++) {
    if (a[i]! < b[i]!) return -1;
    if (a[i]! > b[i]!) return 1;
  }
  return 0;
}

/** What a Packages paragraph is made of: the stored control paragraph and the pool file's facts. */
export interface IndexRow {
  package: string;
  version: string;
  architecture: string;
  filename: string;
  size: number;
  md5: string;
  sha256: string;
  control: string;
}

export const paragraph = (p: IndexRow) => `${p.control}\nFilename: ${p.filename}\nSize: ${p.size}\nMD5sum: ${p.md5}\nSHA256: ${p.sha256}\n\n`;

export interface Segment {
  /** Its deb_segments row; absent until the generation that made it is published. */
  id?: number;
  lo: SegmentKey;
  count: number;
  text: Buffer;
  gz: Buffer;
  xz: XzBlocks;
}

/** A segment before compression. */
interface Piece {
  lo: SegmentKey;
  parts: string[];
  bytes: number;
}

/** Where the packages of a unit come from, in key order. */
export interface UnitRows {
  all(): Iterable<IndexRow>;
  /** Rows with lo <= key < hi (no upper bound when hi is null). */
  range(lo: SegmentKey, hi: SegmentKey | null): Iterable<IndexRow>;
}

export interface UnitUpdate {
  /** The unit's segments after the update, in order. */
  segments: Segment[];
  /** How many of them were cut and compressed now. */
  compressed: number;
}

/** Cuts rows (in key order) into pieces of at least `target` bytes (the last may be smaller); always at least one piece. */
function cut(rows: Iterable<IndexRow>, lo: SegmentKey, target: number): Piece[] {
  const pieces: Piece[] = [{ lo, parts: [], bytes: 0 }];
  for (const r of rows) {
    let cur = pieces[pieces.length - 1]!;
    if (cur.bytes >= target) pieces.push((cur = { lo: [r.package, r.version, r.architecture], parts: [], bytes: 0 }));
    const text = paragraph(r);
    cur.parts.push(text);
    cur.bytes += Buffer.byteLength(text);
  }
  return pieces;
}

/** A last piece below MERGE_BELOW joins the one before it (at most SEGMENT_BYTES + MERGE_BELOW + a paragraph). */
function mergeTail(pieces: Piece[]): Piece[] {
  const last = pieces[pieces.length - 1]!;
  if (pieces.length > 1 && last.bytes < MERGE_BELOW) {
    pieces.pop();
    const prev = pieces[pieces.length - 1]!;
    prev.parts.push(...last.parts);
    prev.bytes += last.bytes;
  }
  return pieces;
}

const workers = Math.max(2, availableParallelism());

/** gzip (libuv pool) and xz (child processes), a few segments at a time. */
function compress(pieces: Piece[]): Promise<Segment[]> {
  return mapLimit(pieces, workers, async (p) => {
    const text = Buffer.from(p.parts.join(''), 'utf8');
    const [gz, x] = await Promise.all([gzip(text), xz(text)]);
    return { lo: p.lo, count: p.parts.length, text, gz, xz: xzBlocks(x) };
  });
}

/** The segment that holds `key`: the last one starting at or before it. */
function segmentOf(segments: Segment[], key: SegmentKey): number {
  let lo = 0;
  let hi = segments.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (compareKeys(segments[mid]!.lo, key) <= 0) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/**
 * Brings a unit's segments up to date. `changed` lists the keys uploads touched; only their
 * segments are read again and recompressed (split when they outgrew SPLIT_ABOVE). 'full', or a
 * unit without segments yet, cuts the whole unit afresh.
 */
export async function updateSegments(current: Segment[], changed: SegmentKey[] | 'full', rows: UnitRows): Promise<UnitUpdate> {
  if (changed === 'full' || !current.length) {
    const segments = await compress(mergeTail(cut(rows.all(), FIRST_KEY, SEGMENT_BYTES)));
    return { segments, compressed: segments.length };
  }

  const hit = new Set(changed.map((k) => segmentOf(current, k)));
  const layout: (Segment | Piece)[] = [];
  for (let i = 0; i < current.length; i++) {
    const seg = current[i]!;
    if (!hit.has(i)) {
      layout.push(seg);
      continue;
    }
    let end = i + 1;
    let [piece] = cut(rows.range(seg.lo, current[end]?.lo ?? null), seg.lo, Infinity);
    if (piece!.bytes < MERGE_BELOW && end < current.length) {
      end++;
      [piece] = cut(rows.range(seg.lo, current[end]?.lo ?? null), seg.lo, Infinity);
    }
    const { bytes, parts } = piece!;
    if (end === i + 1 && bytes === seg.text.length && seg.text.equals(Buffer.from(parts.join(''), 'utf8'))) {
      layout.push(seg); // marked, but nothing changed (e.g. a rebuild repeated after a crash)
      continue;
    }
    if (bytes > SPLIT_ABOVE) {
      const n = Math.ceil(bytes / SEGMENT_BYTES);
      layout.push(...mergeTail(cut(rows.range(seg.lo, current[end]?.lo ?? null), seg.lo, bytes / n)));
    } else {
      layout.push(piece!);
    }
    i = end - 1;
  }
  const pieces = layout.filter((x): x is Piece => 'parts' in x);
  const added = await compress(pieces);
  const made = new Map(pieces.map((p, i) => [p, added[i]!]));
  return { segments: layout.map((x) => ('parts' in x ? made.get(x)! : x)), compressed: added.length };
}

/** The pieces that, in order, make Packages, Packages.gz or Packages.xz (by the file name's ending). */
export function partChunks(path: string, segments: Segment[]): Buffer[] {
  if (path.endsWith('.gz')) return segments.map((s) => s.gz);
  if (path.endsWith('.xz')) return [xzStream(segments.map((s) => s.xz))];
  return segments.map((s) => s.text);
}
