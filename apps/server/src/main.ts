#!/usr/bin/env node
import { BootError, readBootConfig } from '@trove/core';
import pino from 'pino';
import { startServer, type TroveServer } from './compose.js';

// Started in the foreground, configured only by TR_* variables (see docs/operations.md).
const log = pino({ level: 'info', base: undefined, redact: { paths: ['req.headers.authorization', 'req.headers.cookie'], remove: true } });

async function main(): Promise<void> {
  const boot = readBootConfig(process.env);
  // Handlers first: a signal that arrives while the server is still starting (or in the same
  // instant it reports listening) must still end in a clean close, never a bare kill.
  let starting: Promise<TroveServer> | undefined;
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping || !starting) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    starting
      .then((server) => server.close())
      .then(
        () => process.exit(0),
        (err) => {
          log.error({ err }, 'shutdown failed');
          process.exit(1);
        },
      );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  starting = startServer(boot, log);
  await starting;
}

main().catch((err) => {
  if (err instanceof BootError) {
    // Refuse to start with a message that names the variable.
    process.stderr.write(`trove: cannot start: ${err.message}\n`);
  } else {
    log.fatal({ err }, 'trove failed to start');
  }
  process.exit(1);
});
