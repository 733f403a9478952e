import type { FormatContext } from '@trove/core';

/**
 * Debounces index rebuilds: a rebuild starts `deb.debounce` after the last upload, but
 * never later than `deb.max_delay` after the first one that is still waiting, so a steady
 * stream of uploads cannot postpone indexes forever. One rebuild runs at a time.
 */
export class Rebuilder {
  private timer: NodeJS.Timeout | null = null;
  private firstAt: number | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;

  constructor(
    private readonly ctx: FormatContext,
    private readonly work: () => Promise<void>,
  ) {}

  notify(): void {
    if (this.stopped) return;
    const now = Date.now();
    this.firstAt ??= now;
    const due = Math.min(now + this.ctx.settings.ms('deb.debounce'), this.firstAt + this.ctx.settings.ms('deb.max_delay'));
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.fire(), Math.max(0, due - now));
    this.timer.unref?.();
  }

  private fire(): void {
    this.timer = null;
    this.firstAt = null;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.loop().finally(() => (this.running = null));
  }

  private async loop(): Promise<void> {
    do {
      this.again = false;
      try {
        await this.work();
      } catch (err) {
        // Keep the dirty marks and try again later; readers keep the last good generation.
        this.ctx.log.error({ err }, 'debian index rebuild failed; retrying');
        if (!this.stopped) setTimeout(() => this.notify(), Math.max(1000, this.ctx.settings.ms('deb.debounce'))).unref?.();
        return;
      }
    } while (this.again && !this.stopped);
  }

  /** Runs any waiting rebuild now and resolves when it finished (benchmarks, shutdown, tests). */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.firstAt = null;
    while (this.running) await this.running;
    this.running = this.loop().finally(() => (this.running = null));
    await this.running;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    while (this.running) await this.running;
  }
}
