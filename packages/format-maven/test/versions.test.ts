import { describe, expect, it } from 'vitest';
import { compareVersions } from '../src/index.js';

// Orderings from Maven's own ComparableVersionTest: each list is strictly increasing.
const QUALIFIERS = ['1-alpha2snapshot', '1-alpha2', '1-alpha-123', '1-beta-2', '1-beta123', '1-m2', '1-m11', '1-rc', '1-cr2', '1-rc123', '1-SNAPSHOT', '1', '1-sp', '1-sp2', '1-sp123', '1-abc', '1-def', '1-pom-1', '1-1-snapshot', '1-1', '1-2', '1-123'];
const NUMBERS = ['2.0', '2-1', '2.0.a', '2.0.0.a', '2.0.2', '2.0.123', '2.1.0', '2.1-a', '2.1b', '2.1-c', '2.1-1', '2.1.0.1', '2.2', '2.123', '11.a2', '11.a11', '11.b2', '11.b11', '11.m2', '11.m11', '11', '11.a', '11b', '11c', '11m'];

describe('Maven version order', () => {
  for (const [name, list] of [['qualifiers', QUALIFIERS], ['numbers', NUMBERS]] as const) {
    it(`orders ${name} like Maven's ComparableVersion`, () => {
      for (let i = 0; i < list.length; i++) {
        for (let j = 0; j < list.length; j++) {
          expect(Math.sign(compareVersions(list[i]!, list[j]!)), `${list[i]} vs ${list[j]}`).toBe(Math.sign(i - j));
        }
      }
    });
  }

  it('treats equivalent spellings as equal', () => {
    for (const [a, b] of [['1', '1.0.0'], ['1-ga', '1'], ['1.0-final', '1'], ['1-cr1', '1-rc1'], ['1a1', '1-alpha-1'], ['1.0.0-SNAPSHOT', '1-snapshot']]) {
      expect(compareVersions(a, b), `${a} = ${b}`).toBe(0);
    }
  });
});
