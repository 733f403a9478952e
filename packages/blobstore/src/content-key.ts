/**
 * Blobs are content-addressed by sha256: two assets with the same bytes share one blob,
 * a retried upload rewrites the same key, and a key can never point at different content.
 * One level of 256 directories, as Artifactory's filestore: with two levels (65,536 directories) a
 * fresh store made a directory, and flushed its parent, for nearly every new blob, which cost an
 * import of small files into a new Trove about a tenth of its time (bench/mirror-import.mjs);
 * ext4 and XFS index large directories, so millions of blobs stay cheap to look up. Keys stored
 * with the earlier two-level layout stay valid: every asset row holds its blob's key.
 */
export function contentKey(sha256: string): string {
  if (!/^[0-9a-f]{64}$/.test(sha256)) throw new Error(`not a sha256 hex digest: ${sha256}`);
  return `sha256/${sha256.slice(0, 2)}/${sha256}`;
}

/**
 * True only for a key `contentKey` makes, or made under the earlier two-level layout
 * (`sha256/ab/cd/<hex>`), with directories that match the digest. What a storage move's cleanup
 * deletes: a store nested in the old one (`<old>/sha256`) lists as `sha256/sha256/...`, never as this.
 */
export function isContentKey(key: string): boolean {
  const m = /^sha256\/([0-9a-f]{2})\/(?:([0-9a-f]{2})\/)?([0-9a-f]{64})$/.exec(key);
  return !!m && m[3]!.startsWith(m[1]!) && (m[2] === undefined || m[3]!.slice(2, 4) === m[2]);
}
