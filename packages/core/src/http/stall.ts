import type { Socket } from 'node:net';
import type { Context } from 'hono';
import type { TroveEnv } from './env.js';

/**
 * How long a client may send nothing of a body it announced, or read nothing of an answer being
 * sent, before its connection is closed. Without it a client that stalls holds its socket, its
 * spool file or buffered JSON, and a blob's file handle for good (1,000 stalled sign-ins held a
 * gigabyte). Long uploads and slow downloads go on: every byte either way restarts the clock.
 */
const stall = { ms: 120_000 };

/** For `listen` (tests use a short one). */
export function setStallTimeout(ms: number): void {
  stall.ms = ms;
}

/**
 * Runs `work` (reading the request body, or streaming the answer) with the connection closed once
 * it has been idle for the stall time. The body readers then fail as on any cut connection (the
 * spool removes its part file). Outside `work` the server is silent by right (storing an upload to
 * S3 after its body arrived) and nothing is timed.
 */
export async function closeIfStalled<T>(c: Context<TroveEnv>, work: () => Promise<T>): Promise<T> {
  const socket: Socket | undefined = c.env?.incoming?.socket;
  if (!socket || stall.ms <= 0) return work();
  const onIdle = () => socket.destroy();
  const before = socket.timeout ?? 0;
  socket.setTimeout(stall.ms);
  socket.on('timeout', onIdle);
  try {
    return await work();
  } finally {
    socket.off('timeout', onIdle);
    // Node sets its keep-alive timeout once an answer is sent, which may be before this: kept then.
    if (socket.timeout === stall.ms) socket.setTimeout(before);
  }
}
