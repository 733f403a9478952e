import { clean } from './terminal.js';

/** A one-line progress bar on stderr, redrawn at most ten times a second; nothing when stderr is not a terminal. */
export function progressBar(total: number, name: string) {
  const label = clean(name); // a file's name may hold escape sequences too
  const tty = process.stderr.isTTY === true;
  let done = 0;
  let last = 0;
  const mib = (n: number) => (n / 1048576).toFixed(1);
  const draw = () => {
    const width = Math.max(10, Math.min(40, (process.stderr.columns ?? 80) - label.length - 40));
    const frac = total > 0 ? Math.min(1, done / total) : 1;
    const filled = Math.round(frac * width);
    process.stderr.write(`\r${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${String(Math.floor(frac * 100)).padStart(3)}%  ${mib(done)}/${mib(total)} MiB`);
  };
  return {
    advance(n: number) {
      done += n;
      if (!tty) return;
      const now = Date.now();
      if (now - last >= 100 || done >= total) {
        last = now;
        draw();
      }
    },
    finish() {
      if (tty) process.stderr.write('\r\x1b[2K');
    },
  };
}
