import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { parse, sessionOptions } from '../args.js';
import { CliError, usage } from '../errors.js';
import { resolveUrl } from '../server-url.js';
import { closeOrWarn, openSession } from '../session.js';

export const execHelp = `Usage: trove exec --repo REPO [--url URL] [--oidc [--audience AUD]] -- CMD [ARGS...]

Opens a publish session for REPO, runs CMD with these variables added to its environment:

  TROVE_URL            the server's base URL
  TROVE_REPO           the repository
  TROVE_PUBLISH_TOKEN  the session token (the password for uploads to REPO)

and closes the session when CMD ends, however it ends (signals to trove are passed on to
CMD). Exits with CMD's exit status. For example:

  trove exec --repo releases -- mvn deploy
  trove exec --repo releases -- ./gradlew publish

Options:
  --repo REPO      the repository to publish to (required)
  --url URL        the server (default: $TROVE_URL, else the only server logged in to)
  --oidc           use the CI identity token instead of this device's key (see trove session --help)
  --audience AUD   the audience to ask GitHub Actions for (default: the server's URL)`;

const FORWARDED = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT'] as const;

export async function exec(argv: string[]): Promise<number> {
  const dash = argv.indexOf('--');
  const own = dash >= 0 ? argv.slice(0, dash) : argv;
  const command = dash >= 0 ? argv.slice(dash + 1) : [];
  const { values, positionals } = parse('exec', own, { ...sessionOptions, repo: { type: 'string' } });
  if (values.help) return (console.log(execHelp), 0);
  if (positionals.length) throw usage('exec', `put the command after --: trove exec --repo REPO -- ${positionals.join(' ')}`);
  if (!values.repo) throw usage('exec', '--repo REPO is required');
  if (!command.length) throw usage('exec', 'the command to run is missing after --');
  const url = resolveUrl(values.url);
  const s = await openSession({ url, repo: values.repo, oidc: values.oidc, audience: values.audience });

  // Signals are handled from here on: the session must be closed before trove exits.
  const received: NodeJS.Signals[] = [];
  let child: ReturnType<typeof spawn> | undefined;
  const handlers = FORWARDED.map((sig) => {
    const h = () => {
      received.push(sig);
      if (child?.exitCode === null && child.signalCode === null) child.kill(sig);
    };
    process.on(sig, h);
    return [sig, h] as const;
  });

  const outcome = await new Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: Error }>((resolve) => {
    child = spawn(command[0]!, command.slice(1), {
      stdio: 'inherit',
      env: { ...process.env, TROVE_URL: url, TROVE_REPO: s.repo, TROVE_PUBLISH_TOKEN: s.token },
    });
    child.once('error', (error) => resolve({ code: null, signal: null, error }));
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  await closeOrWarn(url, s);
  for (const [sig, h] of handlers) process.off(sig, h);

  if (outcome.error) {
    const notFound = (outcome.error as NodeJS.ErrnoException).code === 'ENOENT';
    throw new CliError(notFound ? `${command[0]}: command not found` : `cannot run ${command[0]}: ${outcome.error.message}`, notFound ? 127 : 126);
  }
  if (outcome.signal) {
    // Die of the same signal, so the caller (a shell, CI) sees what happened to CMD.
    process.kill(process.pid, outcome.signal);
    return 128 + (constants.signals[outcome.signal] ?? 0);
  }
  return outcome.code ?? 1;
}
