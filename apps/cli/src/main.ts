import { exec, execHelp } from './commands/exec.js';
import { login, loginHelp } from './commands/login.js';
import { session, sessionHelp } from './commands/session.js';
import { status, statusHelp } from './commands/status.js';
import { upload, uploadHelp } from './commands/upload.js';
import { CliError } from './errors.js';
import { clean } from './terminal.js';

declare const TROVE_CLI_VERSION: string;

const HELP = `trove: publish to a Trove artifact repository

Usage: trove <command> [options]

Commands:
  login URL            enroll this machine's key with the server (approved in the web UI)
  session REPO         open a publish session and print its token
  exec --repo REPO -- CMD [ARGS...]
                       run CMD with TROVE_URL, TROVE_REPO and TROVE_PUBLISH_TOKEN set,
                       closing the session when it ends (e.g. -- mvn deploy)
  upload REPO FILE [PATH]
                       upload a raw file, or a .deb with --dist and --component
  status               show the server, this device and when it expires

Run \`trove <command> --help\` for a command's options. Every command that opens a session
takes --url URL (default: $TROVE_URL, else the only server logged in to) and --oidc (use
the CI identity token: $TROVE_ID_TOKEN, or GitHub Actions' id-token).

Environment:
  TROVE_URL         the server's base URL
  TROVE_CONFIG_DIR  where device keys live (default: ~/.config/trove)
  TROVE_ID_TOKEN    a CI identity token for --oidc
  TROVE_TIMEOUT     seconds to wait for an answer, or for an upload's progress (default: 60)`;

const COMMANDS: Record<string, { run: (argv: string[]) => Promise<number>; help: string }> = {
  login: { run: login, help: loginHelp },
  session: { run: session, help: sessionHelp },
  exec: { run: exec, help: execHelp },
  upload: { run: upload, help: uploadHelp },
  status: { run: status, help: statusHelp },
};

async function main(argv: string[]): Promise<number> {
  const [first, ...rest] = argv;
  if (first === undefined || first === '--help' || first === '-h') {
    console.log(HELP);
    return first === undefined ? 2 : 0;
  }
  if (first === '--version' || first === '-V') {
    console.log(TROVE_CLI_VERSION);
    return 0;
  }
  if (first === 'help') {
    const cmd = rest[0] ? COMMANDS[rest[0]] : undefined;
    if (rest[0] && !cmd) throw new CliError(`unknown command: ${rest[0]} (see: trove --help)`, 2);
    console.log(cmd ? cmd.help : HELP);
    return 0;
  }
  const cmd = COMMANDS[first];
  if (!cmd) throw new CliError(`unknown command: ${first} (see: trove --help)`, 2);
  return cmd.run(rest);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    const message = err instanceof CliError ? err.message : `unexpected error: ${(err as Error)?.stack ?? String(err)}`;
    // Messages quote what servers said (errors, names, a Location): never raw onto the terminal.
    process.stderr.write(clean(`trove: ${message}`) + '\n');
    process.exitCode = err instanceof CliError ? err.exitCode : 1;
  },
);
