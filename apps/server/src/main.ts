#!/usr/bin/env node
import { BootError, readBootConfig } from '@trove/core';
import pino from 'pino';
import { startServer } from './compose.js';

// Started in the foreground, configured only by TR_* variables (see docs/operations.md).
const log = pino({ level: 'info', base: undefined, redact: { paths: ['req.headers.authorization', 'req.headers.cookie'], remove: true } });

async function main(): Promise<void> {
  const boot = readBootConfig(process.env);
  const server = await startServer(boot, log);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    server.close().then(
      () => process.exit(0),
      (err) => {
        log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
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
