#!/usr/bin/env node
// A real S3-compatible server (s3rver) for tests and benchmarks, in its own process so it
// does not share an event loop with the server under test. Started by src/testing/s3-server.ts;
// the logic of /work/shared/clients/s3-server.mjs.
//
// usage: node s3rver.mjs --dir DIR [--bucket NAME] [--port 0] [--key ACCESS_KEY]
// Prints one JSON line when ready: {"ready":true,"endpoint":"http://127.0.0.1:PORT"}; stops on SIGTERM.
import crypto from 'node:crypto';
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: { port: { type: 'string', default: '0' }, bucket: { type: 'string', default: 'artifacts' }, dir: { type: 'string' }, key: { type: 'string', default: 'S3RVER' } },
});
// s3rver encrypts ListObjectsV2 continuation tokens with single DES, which Node 17+ (OpenSSL 3)
// lacks without --openssl-legacy-provider (paging then fails with InternalError). 3DES with three
// equal keys is exactly DES, and is in the default provider.
try {
  crypto.createCipheriv('des', Buffer.alloc(8), Buffer.alloc(8));
} catch {
  for (const fn of ['createCipheriv', 'createDecipheriv']) {
    const orig = crypto[fn];
    crypto[fn] = (alg, key, iv, opts) => (alg === 'des' ? orig('des-ede3-cbc', Buffer.concat([key, key, key]), iv, opts) : orig(alg, key, iv, opts));
  }
}
// s3rver is a devDependency of @trove/blobstore: resolved from this package, whoever runs the script.
const S3rver = createRequire(import.meta.url)('s3rver');
if (values.key !== 'S3RVER') {
  // A store that knows only this access key (its secret is the same string): requests signed with another are refused.
  const { DUMMY_ACCOUNT } = createRequire(createRequire(import.meta.url).resolve('s3rver'))('./models/account');
  DUMMY_ACCOUNT.revokeAccessKey('S3RVER');
  DUMMY_ACCOUNT.createKeyPair(values.key, values.key);
}
const server = new S3rver({ address: '127.0.0.1', port: Number(values.port), directory: values.dir, silent: true, configureBuckets: [{ name: values.bucket }] });
const { address, port } = await server.run();
console.log(JSON.stringify({ ready: true, endpoint: `http://${address}:${port}` }));
let closing = false;
const shutdown = async () => {
  if (closing) return;
  closing = true;
  await server.close();
  process.exit(0);
};
process.on('SIGINT', shutdown);
process.on('SIGTERM', shutdown);
process.on('disconnect', shutdown);
