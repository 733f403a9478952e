/**
 * Waits until `check()` holds, polling, or fails naming `what`. For effects that
 * settle a moment later, such as an fs close, which is asynchronous.
 */
export async function eventually(check: () => boolean, what: string, ms = 5000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}
