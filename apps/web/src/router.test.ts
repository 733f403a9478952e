import { describe, expect, it } from 'vitest';
import { parseHash, safeNext } from './router';

describe('parseHash', () => {
  it('splits segments, decodes them and keeps the query', () => {
    const r = parseHash('#/repos/my%20repo?prefix=a%2Fb%2F&file=x');
    expect(r.segments).toEqual(['repos', 'my repo']);
    expect(r.query.get('prefix')).toBe('a/b/');
    expect(r.raw).toBe('/repos/my%20repo?prefix=a%2Fb%2F&file=x');
  });

  it('reads the device verification URL the server hands out', () => {
    const r = parseHash('#/publishing?code=ABCD-EFGH');
    expect(r.segments).toEqual(['publishing']);
    expect(r.query.get('code')).toBe('ABCD-EFGH');
  });

  it('treats an empty hash and a malformed escape gracefully', () => {
    expect(parseHash('').segments).toEqual([]);
    expect(parseHash('#/repos/%E0%A4%A').segments).toEqual(['repos', '%E0%A4%A']);
  });
});

describe('safeNext', () => {
  it('follows same-app routes only', () => {
    expect(safeNext('/publishing?code=AB')).toBe('#/publishing?code=AB');
    expect(safeNext('//evil.example/')).toBe('#/');
    expect(safeNext('https://evil.example/')).toBe('#/');
    expect(safeNext('/login?next=/x')).toBe('#/');
    expect(safeNext(null)).toBe('#/');
  });
});
