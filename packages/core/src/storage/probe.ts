import { randomBytes, randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { setTimeout as sleep } from 'node:timers/promises';
import type { BlobDriver } from '@trove/blobstore';

const PROBE_MS = 15_000;
/** Questions to the current store whether it sees the probe object, before an error counts as "no". */
const SAME_PLACE_TRIES = 3;

/** A probe failure: the message says which step failed and why, for the admin. */
export class ProbeError extends Error {}

/**
 * Proves a store works before anything is saved: put, head, get and delete of a temporary
 * object. Also answers whether `current` sees the same object, i.e. the "new" location is
 * the store already in use under another name (then nothing needs to move, and nothing may
 * be deleted from the "old" one).
 */
export async function probeStore(target: BlobDriver, current?: BlobDriver): Promise<{ same: boolean }> {
  const key = `.trove-probe/${randomUUID()}`;
  const bytes = randomBytes(32);
  const signal = AbortSignal.timeout(PROBE_MS);
  const step = async <T>(name: string, fn: () => Promise<T>): Promise<T> => {
    try {
      return await Promise.race([
        fn(),
        new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(new Error(`no answer within ${PROBE_MS / 1000} s`)), { once: true })),
      ]);
    } catch (err) {
      throw new ProbeError(`storage probe failed at ${name}: ${describeError(err)}`);
    }
  };
  await step('put', () => target.put(key, { stream: Readable.from([bytes]), size: bytes.length }, { signal }));
  try {
    const stat = await step('head', () => target.head(key));
    if (stat?.size !== bytes.length) throw new ProbeError(`storage probe failed at head: the object written is ${stat ? `${stat.size} bytes` : 'missing'}`);
    const back = await step('get', async () => {
      const s = await target.get(key);
      return s ? buffer(s) : null;
    });
    if (!back?.equals(bytes)) throw new ProbeError('storage probe failed at get: the object read back differs from the one written');
    return { same: current ? await seenBy(current, key) : false };
  } finally {
    await step('delete', () => target.delete(key));
  }
}

/**
 * Whether `store` sees the probe object. An error is no answer: asked again (a store under load resets a
 * connection now and then). One that keeps failing counts as another place, the safe side here: the
 * change then moves the blobs (a copy onto itself changes nothing), and the move's cleanup asks again
 * before deleting anything.
 */
async function seenBy(store: BlobDriver, key: string): Promise<boolean> {
  for (let attempt = 0; ; attempt++) {
    try {
      return (await store.head(key)) !== null;
    } catch {
      if (attempt === SAME_PLACE_TRIES - 1) return false;
    }
    await sleep(200 * 2 ** attempt);
  }
}

/** SDK errors carry a name (NoSuchBucket, InvalidAccessKeyId) that says more than their message. */
function describeError(err: unknown): string {
  const e = err as { name?: string; message?: string; code?: string };
  const msg = e?.message || String(err);
  if (e?.name && e.name !== 'Error' && !msg.includes(e.name)) return `${e.name}: ${msg}`;
  return msg;
}
