import { and, eq, gte, lt, lte, max, sql } from 'drizzle-orm';
import type { CoreContext } from '@trove/core';
import { mirrorFailures } from '../schema.js';

/**
 * Maven metadata names versions and snapshot builds in the directories below its own. Imported while
 * a file under it failed, it could name a version whose files answer 404: a `-SNAPSHOT` or a version
 * range that resolved before would break. Such metadata waits for the sync that imports that file;
 * the target keeps what it had until then.
 *
 * Made once the repository's other files have ended (the deferred phase), it answers from the
 * failures recorded up to then (a resumed run's included): the order in which the deferred files
 * themselves end changes nothing.
 */
export function metadataHold(db: CoreContext['db'], syncId: number, sourceRepo: string): (metadataPath: string) => string | undefined {
  const thisRepo = and(eq(mirrorFailures.syncId, syncId), eq(mirrorFailures.sourceRepo, sourceRepo));
  const upTo = db.select({ id: max(mirrorFailures.id) }).from(mirrorFailures).where(thisRepo).get()?.id;
  if (upTo == null) return () => undefined; // the common case: nothing failed
  const p = (name: string) => sql.placeholder(name);
  const firstUnder = db
    .select({ path: mirrorFailures.path })
    .from(mirrorFailures)
    .where(and(thisRepo, lte(mirrorFailures.id, upTo), gte(mirrorFailures.path, p('from')), lt(mirrorFailures.path, p('to'))))
    .limit(1)
    .prepare();
  return (metadataPath) => {
    const dir = metadataPath.slice(0, metadataPath.lastIndexOf('/') + 1); // with its slash; '' at the root
    // Every path under `dir`: from `dir` up to `dir` with its slash raised to the next character ('0').
    const range = dir ? { from: dir, to: `${dir.slice(0, -1)}0` } : { from: '', to: '\u{10FFFF}' };
    return firstUnder.get(range)?.path;
  };
}
