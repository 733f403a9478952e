#!/usr/bin/env node
import { BootError, readBootConfig } from '@trove/core';
import pino from 'pino';
import v8 from 'node:v8';
import { startServer, type TroveServer } from './compose.js';

// After a collection in a quiet moment V8 sets the old-generation limit to about twice the
// live heap; the HTTP parser's fresh 64 KiB buffers during a big upload then start a
// mark-compact about every 100 ms for the rest of the process (bench W4: 5-6 CPU s/GiB
// instead of about 2.3). Letting the heap grow more between collections avoids that state.
v8.setFlagsFromString('--heap-growing-percent=300');

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
