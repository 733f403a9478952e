/**
 * When a resource served with `Last-Modified` (whole seconds) changes: now, or the second after the
 * one it had, when that is later. Two versions within one second would share a Last-Modified, and a
 * client that revalidates with If-Modified-Since alone (apt, `wget -N`, `curl -z`) would be told 304
 * and keep the older one. At most a second ahead of the clock: a file replaced many times a second
 * (maven-metadata.xml) does not run into the future.
 */
export function nextModified(previous: Date | number | null | undefined, now: number = Date.now()): Date {
  if (previous == null) return new Date(now);
  const previousMs = typeof previous === 'number' ? previous : previous.getTime();
  return new Date(Math.min(Math.max(now, Math.floor(previousMs / 1000) * 1000 + 1000), now + 1000));
}
