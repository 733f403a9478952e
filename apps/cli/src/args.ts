import { parseArgs, type ParseArgsConfig } from 'node:util';
import { usage } from './errors.js';

type Options = NonNullable<ParseArgsConfig['options']>;

/** Options every command accepts. */
export const commonOptions = {
  help: { type: 'boolean', short: 'h' },
} as const satisfies Options;

/** Options of the commands that open a publish session. */
export const sessionOptions = {
  url: { type: 'string' },
  oidc: { type: 'boolean' },
  audience: { type: 'string' },
} as const satisfies Options;

/**
 * node:util's parser, with its errors turned into a usage error naming the command.
 * Unknown options are refused: a typo must not silently publish somewhere else.
 */
export function parse<O extends Options>(command: string, argv: string[], options: O) {
  try {
    return parseArgs({ args: argv, options: { ...commonOptions, ...options }, allowPositionals: true, strict: true });
  } catch (e) {
    throw usage(command, (e as Error).message.replace(/\. To specify a positional argument.*$/s, ''));
  }
}
