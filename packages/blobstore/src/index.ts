export type { BlobDriver, BlobReader, BlobSource, BlobStat, ByteRange } from './types.js';
export { Spool, UploadTooLargeError, UploadIncompleteError, type SpooledFile, type HashAlgorithm, type ReceiveOptions } from './spool.js';
export { contentKey, isContentKey } from './content-key.js';
export { s3PrefixProblem } from './prefix.js';
export { groupCommit } from './group-commit.js';
export { BlobStore } from './store.js';
export { fsDriver, clearFsTemp, type FsDriverOptions } from './drivers/fs.js';
export { SmallBlobCache, type SmallBlobCacheOptions } from './small-blobs.js';
export { createDriver, storageConfig, storageLocation, LOCATION_KEYS, type StorageConfig } from './create-driver.js';
