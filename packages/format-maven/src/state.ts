import type { FormatContext } from '@trove/core';
import { Digests, RecentSubmissions } from './digests.js';
import { KeyedLock } from './keyed-lock.js';
import { SnapshotDocs } from './snapshot-docs.js';

/** What the read and write handlers of one mounted Maven format share. */
export interface MavenState {
  ctx: FormatContext;
  locks: KeyedLock;
  digests: Digests;
  submissions: RecentSubmissions;
  snapshotDocs: SnapshotDocs;
}

export function createState(ctx: FormatContext): MavenState {
  return { ctx, locks: new KeyedLock(), digests: new Digests(ctx.blobs), submissions: new RecentSubmissions(), snapshotDocs: new SnapshotDocs(ctx.blobs) };
}

/** Lock and memory keys are per repository and path. */
export const pathKey = (repoId: number, path: string) => `${repoId}:${path}`;
