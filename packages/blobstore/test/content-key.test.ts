import { describe, expect, it } from 'vitest';
import { contentKey, isContentKey } from '../src/index.js';

describe('contentKey', () => {
  it('places a blob under one level of 256 directories named by its first two hex digits', () => {
    const h = 'ab'.repeat(32);
    expect(contentKey(h)).toBe(`sha256/ab/${h}`);
  });

  it('refuses anything but a lower-case sha256 hex digest', () => {
    for (const bad of ['', 'AB'.repeat(32), 'ab'.repeat(31), '../'.repeat(21) + 'a', 'zz'.repeat(32)]) expect(() => contentKey(bad)).toThrow(/not a sha256/);
  });

  it('recognises exactly the keys it makes, and those of the earlier two-level layout', () => {
    const h = 'ab'.repeat(32);
    expect(isContentKey(contentKey(h))).toBe(true);
    expect(isContentKey(`sha256/ab/ab/${h}`)).toBe(true);
    for (const other of [`sha256/sha256/ab/${h}`, `sha256/cd/${h}`, `sha256/ab/cd/${h}`, `x/sha256/ab/${h}`, `sha256/ab/${h}/x`, `sha256/ab/${h.toUpperCase()}`, 'sha256/ab/.tmp', '']) {
      expect(isContentKey(other), other).toBe(false);
    }
  });
});
