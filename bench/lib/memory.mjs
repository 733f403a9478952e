import { resetPeak, sampleRss } from './proc.mjs';
import { mib } from './stats.mjs';

/**
 * Measures one transfer's memory on a server process: RSS before, the peak during
 * (VmHWM after a reset, so start-up's peak does not hide the run's), and RSS samples
 * every `everyMs` to show whether it stays flat. Growth = peak - RSS before.
 */
export async function withMemory(server, fn, { everyMs = 100 } = {}) {
  const peakReset = resetPeak(server.pid);
  const before = server.memory();
  const sampler = sampleRss(server.pid, everyMs);
  const result = await fn();
  const samples = sampler.stop();
  const after = server.memory();
  const peak = peakReset ? after.hwm : Math.max(after.rss, ...samples);
  return { result, rssBefore: before.rss, peak, growth: peak - before.rss, samples, peakReset };
}

/**
 * Flatness for a long transfer: the RSS range (max - min) over the middle 80% of the
 * samples, and the drift from the first to the last fifth, both in MiB.
 */
export function flatness(samples) {
  const n = samples.length;
  if (n === 0) return { rangeMiB: 0, driftMiB: 0 };
  const mid = samples.slice(Math.floor(n * 0.1), Math.ceil(n * 0.9));
  const avg = (xs) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  const fifth = Math.max(1, Math.floor(n / 5));
  return {
    rangeMiB: mib(Math.max(...mid) - Math.min(...mid)),
    driftMiB: mib(avg(samples.slice(n - fifth)) - avg(samples.slice(0, fifth))),
  };
}
