import type { StorageMove } from '../../../api/types';

/** Files handled so far (copied, already there, or failed) and the fraction of the total. */
export function moveProgress(m: Pick<StorageMove, 'total' | 'copied' | 'skipped' | 'failed'>): { done: number; fraction: number } {
  const done = m.copied + m.skipped + m.failed;
  return { done, fraction: m.total > 0 ? Math.min(1, done / m.total) : m.total === 0 ? 1 : 0 };
}

export interface Sample {
  at: number;
  done: number;
}

/**
 * Files a second over the samples of the last `windowMs`, and the seconds left at that rate;
 * null until two samples a moment apart exist (a rate from one poll would be noise).
 */
export function rateAndEta(samples: Sample[], total: number, windowMs = 30_000): { perSecond: number; secondsLeft: number | null } | null {
  if (samples.length < 2) return null;
  const last = samples[samples.length - 1]!;
  const first = samples.find((s) => last.at - s.at <= windowMs) ?? samples[0]!;
  const seconds = (last.at - first.at) / 1000;
  if (seconds < 0.5) return null;
  const perSecond = (last.done - first.done) / seconds;
  const left = total - last.done;
  return { perSecond, secondsLeft: perSecond > 0 ? Math.ceil(left / perSecond) : null };
}

/** "2 h 5 min", "4 min 10 s", "12 s". */
export function formatSeconds(s: number): string {
  if (s < 60) return `${Math.max(0, Math.round(s))} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;
  return `${Math.floor(s / 3600)} h ${Math.round((s % 3600) / 60)} min`;
}
