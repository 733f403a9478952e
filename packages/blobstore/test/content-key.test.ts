import { describe, expect, it } from 'vitest';
import { contentKey } from '../src/index.js';

describe('contentKey', () => {
  it('places a blob under one level of 256 directories named by its first two hex digits', () => {
    const h = 'ab'.repeat(32);
    expect(contentKey(h)).toBe(`sha256/ab/${h}`);
  });

  it('refuses anything but a lower-case sha256 hex digest', () => {
    for (const bad of ['', 'AB'.repeat(32), 'ab'.repeat(31), '../'.repeat(21) + 'a', 'zz'.repeat(32)]) expect(() => contentKey(bad)).toThrow(/not a sha256/);
  });
});
