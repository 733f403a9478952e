/**
 * Blobs are content-addressed by sha256: two assets with the same bytes share one blob,
 * a retried upload rewrites the same key, and a key can never point at different content.
 * Two levels of fan-out keep directories small on the fs driver.
 */
export function contentKey(sha256: string): string {
  if (!/^[0-9a-f]{64}$/.test(sha256)) throw new Error(`not a sha256 hex digest: ${sha256}`);
  return `sha256/${sha256.slice(0, 2)}/${sha256.slice(2, 4)}/${sha256}`;
}
