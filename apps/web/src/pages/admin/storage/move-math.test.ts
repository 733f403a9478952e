import { describe, expect, it } from 'vitest';
import { formatSeconds, moveProgress, rateAndEta } from './move-math';

describe('storage move progress', () => {
  it('counts copied, skipped and failed files as handled', () => {
    expect(moveProgress({ total: 10, copied: 3, skipped: 1, failed: 1 })).toEqual({ done: 5, fraction: 0.5 });
    expect(moveProgress({ total: 0, copied: 0, skipped: 0, failed: 0 }).fraction).toBe(1);
  });

  it('derives the rate over recent samples and the time left at that rate', () => {
    expect(rateAndEta([{ at: 0, done: 0 }], 100)).toBeNull();
    expect(rateAndEta([{ at: 0, done: 0 }, { at: 2000, done: 20 }], 100)).toEqual({ perSecond: 10, secondsLeft: 8 });
    // old samples outside the window do not drag the rate down
    expect(rateAndEta([{ at: 0, done: 0 }, { at: 60_000, done: 10 }, { at: 70_000, done: 110 }], 1110)?.perSecond).toBe(10);
    expect(rateAndEta([{ at: 0, done: 5 }, { at: 5000, done: 5 }], 100)).toEqual({ perSecond: 0, secondsLeft: null });
  });

  it('formats durations for people', () => {
    expect(formatSeconds(12)).toBe('12 s');
    expect(formatSeconds(250)).toBe('4 min 10 s');
    expect(formatSeconds(7500)).toBe('2 h 5 min');
  });
});
