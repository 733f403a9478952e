import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { BlobStore } from '@trove/blobstore';
import { notFound, type AssetRow } from '@trove/core';
import type { ChecksumAlgorithm } from './layout.js';

/**
 * Digests of stored files for checksum side files. Uploads hash sha256 (identity), sha1 and
 * md5 (what Maven and Gradle ask for) in one pass; sha512 costs several times more on every
 * upload (see BENCH.md), so it is computed from the blob the first time a client asks and
 * remembered by content address, which never changes meaning.
 */
export class Digests {
  private readonly cache = new Map<string, string>();
  private readonly running = new Map<string, Promise<string>>();

  constructor(
    private readonly blobs: BlobStore,
    private readonly max = 20_000,
  ) {}

  async of(asset: AssetRow, algorithm: ChecksumAlgorithm): Promise<string> {
    if (algorithm === 'sha256') return asset.sha256;
    if (algorithm === 'sha1' && asset.sha1) return asset.sha1;
    if (algorithm === 'md5' && asset.md5) return asset.md5;
    const key = `${algorithm}:${asset.sha256}`;
    const hit = this.cache.get(key);
    if (hit) return hit;
    let job = this.running.get(key);
    if (!job) {
      job = (async () => {
        const stream = await this.blobs.get(asset.blobKey);
        if (!stream) throw notFound('file content is missing from the blob store');
        return hashStream(stream, algorithm);
      })();
      this.running.set(key, job);
      job.then((hex) => this.remember(key, hex), () => {}).finally(() => this.running.delete(key));
    }
    return job;
  }

  private remember(key: string, hex: string): void {
    if (this.cache.size >= this.max) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(key, hex);
  }
}

export async function hashStream(stream: Readable, algorithm: string): Promise<string> {
  const h = createHash(algorithm);
  await pipeline(stream, h);
  return h.digest('hex');
}

/** A small stored file (checksums, metadata) as bytes, through the blob store's small-blob cache. */
export async function readSmall(blobs: BlobStore, asset: AssetRow): Promise<Buffer> {
  const bytes = await blobs.readSmall(asset.blobKey, asset.size);
  if (!bytes) throw notFound('file content is missing from the blob store');
  return bytes;
}

/**
 * Hashes of the metadata documents clients sent recently, per path. The server may store a
 * merged document instead of the client's (concurrent deploys), and the client then uploads
 * checksums of its own bytes: those are right about what it sent and must not fail its deploy.
 */
export class RecentSubmissions {
  private readonly byPath = new Map<string, { hashes: Set<string>; at: number }>();
  constructor(
    private readonly ttlMs = 60 * 60 * 1000,
    private readonly maxPaths = 10_000,
  ) {}

  add(key: string, hashes: string[]): void {
    const now = Date.now();
    const entry = this.byPath.get(key);
    if (entry && now - entry.at < this.ttlMs) {
      this.byPath.delete(key);
      if (entry.hashes.size > 4096) entry.hashes.clear();
      hashes.forEach((h) => entry.hashes.add(h));
      entry.at = now;
      this.byPath.set(key, entry);
      return;
    }
    this.byPath.delete(key);
    if (this.byPath.size >= this.maxPaths) this.byPath.delete(this.byPath.keys().next().value!);
    this.byPath.set(key, { hashes: new Set(hashes), at: now });
  }

  has(key: string, hex: string): boolean {
    const entry = this.byPath.get(key);
    return !!entry && Date.now() - entry.at < this.ttlMs && entry.hashes.has(hex);
  }
}
