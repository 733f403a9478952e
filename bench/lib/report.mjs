/**
 * Output convention for every bench script (run.mjs relies on it): human-readable
 * lines first, then exactly one line `BENCH-SUMMARY {json}` with
 * {id, title, rows: [{name, value, target?, verdict?}], notes?: [...] }.
 */
import { loadAverage } from './proc.mjs';

export function header(id, title) {
  console.log(`\n== ${id}: ${title}`);
  console.log(`   load average at start: ${loadAverage()}`);
}

export function line(text) {
  console.log(`   ${text}`);
}

/** "meets" / "MISSES" against a target predicate, for the summary. */
export const verdict = (ok) => (ok ? 'meets' : 'MISSES');

export function summary(obj) {
  console.log(`BENCH-SUMMARY ${JSON.stringify({ ...obj, load: loadAverage() })}`);
}
