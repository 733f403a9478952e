/** Medians and spreads: every figure in bench/ is reported as median [min-max] over its runs. */

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

export function spread(xs) {
  return { median: median(xs), min: Math.min(...xs), max: Math.max(...xs), runs: xs.length };
}

/** "12345 [12000-12600]" with `digits` decimals. */
export function fmt(s, digits = 0) {
  const f = (x) => x.toFixed(digits);
  return `${f(s.median)} [${f(s.min)}-${f(s.max)}]`;
}

export const ratio = (a, b) => (b > 0 ? a / b : NaN);
export const fmtRatio = (r) => `${r.toFixed(2)}x`;
export const mib = (bytes) => bytes / (1024 * 1024);
