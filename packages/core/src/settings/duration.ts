const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/**
 * Parses durations like `15m`, `1h30m`, `300ms`, `2160h`. There is deliberately no day
 * unit (SPEC): `90d` is an error, `2160h` is ninety days. Returns milliseconds or null.
 */
export function parseDuration(input: string): number | null {
  const s = input.trim();
  if (!/^(\d+(\.\d+)?(ms|s|m|h))+$/.test(s)) return null;
  let total = 0;
  for (const m of s.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)) total += Number(m[1]) * UNITS[m[2]!]!;
  return total > 0 ? Math.round(total) : null;
}
