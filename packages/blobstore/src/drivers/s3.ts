import {
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { s3PrefixProblem } from '../prefix.js';
import type { BlobDriver } from '../types.js';

// This file is loaded only through `createDriver` (a dynamic import): a server on fs never
// loads the S3 SDK, which is most of the blob store's start-up cost and memory.

export interface S3DriverOptions {
  endpoint: string;
  region?: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Prefix for every object key; slashes at the ends are trimmed, `..`, `.` and empty segments are refused. */
  prefix?: string;
  pathStyle?: boolean;
  /** Attempts per request (SDK retries); the storage probe uses 1 so a dead endpoint fails fast. */
  maxAttempts?: number;
}

/**
 * Part size of a multipart upload: 8 MiB keeps a 2 GiB upload at 256 parts, far under S3's 10,000
 * (objects up to 80 GiB), and above its 5 MiB minimum. lib-storage buffers each part in memory.
 */
const PART_SIZE = 8 * 1024 * 1024;
/** Parts in flight at once: memory held is PART_SIZE times this (32 MiB per upload). */
const QUEUE = 4;

export function normalizePrefix(raw: string | undefined): string {
  const p = (raw ?? '').replace(/^\/+|\/+$/g, '');
  const problem = s3PrefixProblem(p);
  if (problem) throw new Error(`s3 prefix ${problem}`);
  return p;
}

const isMissing = (err: unknown) =>
  err instanceof S3ServiceException &&
  (err.name === 'NoSuchKey' || err.name === 'NotFound' || err.$metadata?.httpStatusCode === 404);

/**
 * Blobs as objects in an S3-compatible bucket (AWS, R2, MinIO, Ceph, s3rver). A PutObject or a
 * completed multipart upload is atomic in S3, so readers never see a partial object.
 * Checksums are computed only when an operation requires them: the SDK's default (an
 * aws-chunked body with a CRC trailer on every put) is not understood by every S3-compatible
 * store, and s3rver stores the chunk framing inside the object. Content integrity is Trove's
 * own sha256, checked on upload and on every copy of a storage move.
 */
export function s3Driver(opts: S3DriverOptions): BlobDriver {
  if (!opts.endpoint) throw new Error('s3 endpoint is required');
  if (!opts.bucket) throw new Error('s3 bucket is required');
  if (!opts.accessKeyId || !opts.secretAccessKey) throw new Error('s3 access key id and secret access key are required');
  const prefix = normalizePrefix(opts.prefix);
  const bucket = opts.bucket;
  const client = new S3Client({
    endpoint: opts.endpoint,
    region: opts.region || 'auto',
    forcePathStyle: !!opts.pathStyle,
    credentials: { accessKeyId: opts.accessKeyId, secretAccessKey: opts.secretAccessKey },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: opts.maxAttempts ?? 3,
  });
  const objectKey = (key: string) => {
    if (!key || key.split('/').some((s) => s === '' || s === '..' || s === '.')) throw new Error(`invalid blob key: ${key}`);
    return prefix ? `${prefix}/${key}` : key;
  };

  return {
    name: 's3',

    async put(key, source, putOpts) {
      const body = 'path' in source ? createReadStream(source.path) : source.stream;
      // lib-storage sends one PutObject for a body under a part, a multipart upload otherwise.
      const upload = new Upload({
        client,
        params: { Bucket: bucket, Key: objectKey(key), Body: body },
        partSize: PART_SIZE,
        queueSize: QUEUE,
        leavePartsOnError: false,
      });
      const onAbort = () => void upload.abort().catch(() => {});
      putOpts?.signal?.addEventListener('abort', onAbort, { once: true });
      try {
        await upload.done();
      } finally {
        putOpts?.signal?.removeEventListener('abort', onAbort);
        if ('path' in source) (body as Readable).destroy();
      }
    },

    async get(key, getOpts) {
      const range = getOpts?.range;
      try {
        const out = await client.send(
          new GetObjectCommand({ Bucket: bucket, Key: objectKey(key), Range: range ? `bytes=${range.start}-${range.end}` : undefined }),
          { abortSignal: getOpts?.signal },
        );
        return out.Body as Readable;
      } catch (err) {
        if (isMissing(err)) return null;
        throw err;
      }
    },

    async head(key) {
      try {
        const out = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: objectKey(key) }));
        return { size: out.ContentLength ?? 0 };
      } catch (err) {
        if (isMissing(err)) return null;
        throw err;
      }
    },

    async delete(key) {
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: objectKey(key) }));
    },

    async deleteMany(keys) {
      for (let i = 0; i < keys.length; i += 1000) {
        const out = await client.send(
          new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: keys.slice(i, i + 1000).map((k) => ({ Key: objectKey(k) })), Quiet: true } }),
        );
        const failed = out.Errors ?? [];
        if (failed.length) throw new Error(`could not delete ${failed.length} object(s), first ${failed[0]!.Key}: ${failed[0]!.Code} ${failed[0]!.Message ?? ''}`);
      }
    },

    async *list(under = '') {
      const strip = prefix ? prefix.length + 1 : 0;
      let token: string | undefined;
      // ListObjectsV2 answers at most 1,000 keys per page; follow the continuation token to the end.
      do {
        const page = await client.send(
          new ListObjectsV2Command({ Bucket: bucket, Prefix: (prefix ? prefix + '/' : '') + under, ContinuationToken: token }),
        );
        for (const o of page.Contents ?? []) {
          if (o.Key) yield { key: o.Key.slice(strip), size: o.Size ?? 0, modified: o.LastModified };
        }
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
    },

    async presignGet(key, p) {
      const filename = p.filename?.replace(/[^\x20-\x7e]|["\\]/g, '_'); // a header value: printable ASCII, no quote
      return getSignedUrl(
        client,
        new GetObjectCommand({
          Bucket: bucket,
          Key: objectKey(key),
          ResponseContentType: p.contentType,
          ResponseContentDisposition: filename ? `attachment; filename="${filename}"` : 'attachment',
        }),
        { expiresIn: p.expiresInSeconds },
      );
    },

    async close() {
      client.destroy();
    },
  };
}
