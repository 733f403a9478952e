import type { BlobStore } from '@trove/blobstore';
import type { AssetRow } from '@trove/core';
import { readSmall } from './digests.js';
import { parseMetadata, type MetadataDoc } from './metadata.js';

/**
 * Version-level metadata names one build per classifier and extension: a few KiB. A larger one
 * did not come from Maven, and an anonymous GET must not read it (the mirror imports documents
 * of any size) nor spend the parse on it.
 */
export const MAX_SNAPSHOT_METADATA_BYTES = 1024 * 1024;

/**
 * Parsed version-level metadata for resolving `-SNAPSHOT` names, by content address (the bytes
 * never change meaning). A document that does not parse is remembered as such, so asking for its
 * names again costs nothing: those GETs are 404s, which no read-path cache answers. Bounded by the
 * documents' total size.
 */
export class SnapshotDocs {
  private readonly docs = new Map<string, { doc: Promise<MetadataDoc | null>; size: number }>();
  private total = 0;

  constructor(
    private readonly blobs: BlobStore,
    private readonly maxTotal = 4 * 1024 * 1024,
  ) {}

  /** Null when the document cannot name a build: too large, or not metadata Trove can read. */
  async of(meta: AssetRow): Promise<MetadataDoc | null> {
    if (meta.size > MAX_SNAPSHOT_METADATA_BYTES) return null;
    const hit = this.docs.get(meta.sha256);
    if (hit) {
      this.docs.delete(meta.sha256);
      this.docs.set(meta.sha256, hit);
      return hit.doc;
    }
    const doc = readSmall(this.blobs, meta).then((bytes) => {
      try {
        return parseMetadata(bytes.toString('utf8'));
      } catch {
        return null;
      }
    });
    const entry = { doc, size: Math.max(meta.size, 1) };
    this.docs.set(meta.sha256, entry);
    this.total += entry.size;
    // A blob that could not be read says nothing about the document: the next GET tries again.
    doc.catch(() => this.forget(meta.sha256, entry));
    while (this.total > this.maxTotal) {
      const [oldest, e] = this.docs.entries().next().value!;
      this.forget(oldest, e);
    }
    return doc;
  }

  private forget(key: string, entry: { size: number }): void {
    if (this.docs.get(key) !== entry) return;
    this.docs.delete(key);
    this.total -= entry.size;
  }
}
