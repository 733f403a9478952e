import crypto from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestS3Server {
  endpoint: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  bucket: string;
  dir: string;
  close(): Promise<void>;
}

let desPatched = false;

/**
 * s3rver encrypts ListObjectsV2 continuation tokens with single DES, which Node 17+ (OpenSSL 3)
 * lacks without --openssl-legacy-provider (paging then fails with InternalError). 3DES with three
 * equal keys is exactly DES and is in the default provider. Patched once, in this process only.
 */
function patchDes(): void {
  if (desPatched) return;
  desPatched = true;
  try {
    crypto.createCipheriv('des', Buffer.alloc(8), Buffer.alloc(8));
  } catch {
    const c = crypto as unknown as Record<string, (...a: unknown[]) => unknown>;
    for (const fn of ['createCipheriv', 'createDecipheriv']) {
      const orig = c[fn]!;
      c[fn] = (alg: unknown, key: unknown, iv: unknown, o: unknown) =>
        alg === 'des' ? orig('des-ede3-cbc', Buffer.concat([key as Buffer, key as Buffer, key as Buffer]), iv, o) : orig(alg, key, iv, o);
    }
  }
}

/**
 * A real S3-compatible server (s3rver) on 127.0.0.1 and a free port, in this process, with one
 * empty bucket, for tests of the s3 driver and of anything stored on it (the logic of
 * /work/shared/clients/s3-server.mjs). Clients need path-style addressing and credentials
 * S3RVER/S3RVER; s3rver does not verify signatures.
 */
export async function startS3Server(opts: { bucket?: string; dir?: string } = {}): Promise<TestS3Server> {
  patchDes();
  // s3rver is a devDependency of @trove/blobstore; resolved from here so other packages' tests can call this.
  const S3rver = createRequire(import.meta.url)('s3rver');
  const bucket = opts.bucket ?? 'artifacts';
  const dir = opts.dir ?? mkdtempSync(join(tmpdir(), 'trove-s3rver-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, directory: dir, silent: true, configureBuckets: [{ name: bucket }] });
  const { address, port } = await server.run();
  return {
    endpoint: `http://${address}:${port}`,
    region: 'us-east-1',
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
    bucket,
    dir,
    async close() {
      await server.close();
      if (!opts.dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}
