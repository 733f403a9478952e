/** A failure the user can act on: printed as one line on stderr, then the process exits with `exitCode`. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

/** The usage error of a command: names the command's help. */
export const usage = (command: string, message: string) => new CliError(`${message} (see: trove ${command} --help)`, 2);
