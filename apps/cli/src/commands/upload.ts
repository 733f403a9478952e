import { createReadStream, statSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { basename } from 'node:path';
import { parse, sessionOptions } from '../args.js';
import { CliError, usage } from '../errors.js';
import { MAX_ANSWER_BYTES, networkMessage, parseBody, redirectError, serverMessage, timeoutSeconds, tooLarge, type Answer } from '../http.js';
import { progressBar } from '../progress.js';
import { resolveUrl } from '../server-url.js';
import { closeOrWarn, openSession, type PublishSession } from '../session.js';
import { say } from '../terminal.js';

export const uploadHelp = `Usage: trove upload REPO FILE [PATH] [--dist DIST --component COMP] [--url URL] [--oidc]

Uploads FILE to the repository REPO in a publish session of its own (opened, then closed):
  raw repositories:     to PATH (default: the file's name), e.g. app/1.0.0/app.tar.gz
  Debian repositories:  the .deb into distribution DIST, component COMP
Maven repositories are published by Maven or Gradle: trove exec --repo REPO -- mvn deploy

The file is streamed (never read whole into memory), with a progress bar on a terminal.
Prints the server's answer (JSON) on stdout.

Options:
  --dist DIST        Debian distribution, e.g. stable (Debian repositories)
  --component COMP   Debian component, e.g. main (Debian repositories)
  --url URL          the server (default: $TROVE_URL, else the only server logged in to)
  --oidc             use the CI identity token instead of this device's key (see trove session --help)
  --audience AUD     the audience to ask GitHub Actions for (default: the server's URL)`;

const encodePath = (p: string) => p.split('/').map(encodeURIComponent).join('/');

/**
 * Streams the file as the request body; resolves with the answer, even one sent before the body ended (413).
 * node:http never follows a redirect: a 3xx comes back as the answer (see explain).
 */
function put(target: URL, file: string, size: number, token: string, contentType: string): Promise<Answer> {
  const bar = progressBar(size, basename(file));
  const idle = timeoutSeconds();
  return new Promise((resolve, reject) => {
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const stream = createReadStream(file);
    let answered = false;
    let settled = false;
    const req = send(target, {
      method: 'PUT',
      headers: {
        authorization: 'Basic ' + Buffer.from(`trove:${token}`).toString('base64'),
        'content-type': contentType,
        'content-length': String(size),
        accept: 'application/json',
        'user-agent': 'trove-cli',
        // The server refuses (413, 401, 403, 409 for an immutable path) before the body when it can; without
        // this, its answer raced the body: the client often got EPIPE first and reported "cannot reach".
        expect: '100-continue',
      },
    });
    /** Ends the upload with `e` (once): the caller then closes the session. */
    const fail = (e: CliError) => {
      if (settled) return;
      settled = true;
      clearTimeout(noContinue);
      stream.destroy();
      req.destroy();
      bar.finish();
      reject(e);
    };
    let started = false;
    const start = () => {
      if (started || answered) return;
      started = true;
      clearTimeout(noContinue);
      stream.on('data', (c) => bar.advance(c.length));
      stream.pipe(req);
    };
    req.on('continue', start);
    // A server or proxy that ignores Expect gets the body after a second anyway, as curl does.
    const noContinue = setTimeout(start, 1000);
    // The socket's idle time: reset by every byte sent or received, so a large upload on a slow line
    // goes on, while a server that stops reading the body or never answers ends the upload.
    req.setTimeout(idle * 1000, () => {
      if (req.writableFinished && !answered) return fail(new CliError(`${target.origin} received the whole file but did not answer within ${storing} s`));
      fail(new CliError(`${target.origin} stopped ${started && !answered ? 'taking the upload' : 'answering'}: nothing for ${idle} s`));
    });
    // Once the body is sent the server stores the file before it answers (to S3: gigabytes take minutes),
    // silent meanwhile: it gets the idle time plus a second per 10 MB.
    const storing = Math.ceil(idle + size / 10e6);
    req.on('finish', () => req.setTimeout(storing * 1000));
    req.on('response', (res: IncomingMessage) => {
      answered = true;
      clearTimeout(noContinue);
      stream.destroy();
      // Answered before the whole body was sent (a refusal, a redirect): the request can never complete,
      // so the connection is dropped rather than held open until the server's keep-alive timeout.
      res.on('end', () => {
        if (!req.writableFinished) req.destroy();
      });
      bar.finish();
      const chunks: Buffer[] = [];
      let kept = 0;
      res.on('data', (c: Buffer) => {
        kept += c.length;
        if (kept > MAX_ANSWER_BYTES) return fail(tooLarge(target.origin, 'the upload'));
        chunks.push(c);
      });
      res.on('end', () => {
        if (settled) return;
        settled = true;
        const body = parseBody(Buffer.concat(chunks).toString('utf8'));
        resolve({ status: res.statusCode ?? 0, headers: new Headers(res.headers as Record<string, string>), body });
      });
      res.on('error', (e) => fail(new CliError(`the upload was cut off: ${e.message}`)));
    });
    req.on('error', (e) => {
      // A server that answered early (413) may close before the body is sent: the answer counts.
      if (answered) return;
      fail(new CliError(networkMessage(target.origin, e)));
    });
    stream.on('error', (e) => fail(new CliError(`cannot read ${file}: ${e.message}`)));
  });
}

function explain(a: Answer, s: PublishSession, where: string, size: number, server: string): CliError {
  const msg = serverMessage(a);
  if (a.status >= 300 && a.status < 400) return redirectError(server, a.status, a.headers.get('location'), 'the upload', 'the upload carries the session token');
  switch (a.status) {
    case 409:
      return new CliError(
        s.format === 'debian'
          ? `conflict: ${where} already holds this package name, version and architecture with different contents; a published package is never replaced, so bump the version (${msg})`
          : `conflict: ${where} already exists with different contents and ${s.repo} does not allow overwrites; upload to a new path or version (${msg})`,
      );
    case 413:
      return new CliError(`too large: the file is ${size} bytes, more than the server accepts (max_upload_bytes); ask an admin to raise it (${msg})`);
    case 401:
      return new CliError(`the server refused the publish session: ${msg}`);
    case 403:
      return new CliError(`not allowed to publish to ${s.repo}: ${msg}`);
    default:
      return new CliError(`upload failed with ${a.status}: ${msg}`);
  }
}

export async function upload(argv: string[]): Promise<number> {
  const { values, positionals } = parse('upload', argv, { ...sessionOptions, dist: { type: 'string' }, component: { type: 'string' } });
  if (values.help) return (console.log(uploadHelp), 0);
  if (positionals.length < 2) throw usage('upload', 'REPO and FILE are required');
  if (positionals.length > 3) throw usage('upload', 'too many arguments');
  const [repo, file, pathArg] = positionals as [string, string, string | undefined];
  let size: number;
  try {
    const st = statSync(file);
    if (!st.isFile()) throw new CliError(`${file} is not a file`);
    size = st.size;
  } catch (e) {
    if (e instanceof CliError) throw e;
    throw new CliError(`cannot read ${file}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`);
  }
  const url = resolveUrl(values.url);
  const s = await openSession({ url, repo, oidc: values.oidc, audience: values.audience });
  try {
    let target: string;
    let where: string;
    let type = 'application/octet-stream';
    if (s.format === 'raw') {
      if (values.dist || values.component) throw usage('upload', `${repo} is a raw repository: give a PATH, not --dist/--component`);
      const path = (pathArg ?? basename(file)).replace(/^\/+/, '');
      if (!path) throw usage('upload', 'PATH is empty');
      // URL parsing would resolve them, sending the file somewhere else than PATH says.
      if (path.split('/').some((seg) => seg === '.' || seg === '..')) throw usage('upload', `PATH must not contain . or .. segments: ${path}`);
      target = `${url}/raw/${encodeURIComponent(repo)}/${encodePath(path)}`;
      where = path;
    } else if (s.format === 'debian') {
      if (pathArg) throw usage('upload', `${repo} is a Debian repository: use --dist DIST --component COMP instead of a PATH`);
      if (!values.dist || !values.component) throw usage('upload', `${repo} is a Debian repository: --dist DIST and --component COMP are required`);
      target = `${url}/debian/${encodeURIComponent(repo)}/upload/${encodeURIComponent(values.dist)}/${encodeURIComponent(values.component)}`;
      where = `${values.dist}/${values.component}`;
      type = 'application/vnd.debian.binary-package';
    } else if (s.format === 'maven') {
      throw new CliError(`${repo} is a Maven repository: publish with Maven or Gradle, e.g. trove exec --repo ${repo} -- mvn deploy`);
    } else {
      throw new CliError(`trove upload does not know how to upload to a ${s.format || 'repository of unknown format'} repository`);
    }
    const a = await put(new URL(target), file, size, s.token, type);
    if (a.status !== 200 && a.status !== 201) throw explain(a, s, where, size, url);
    say(typeof a.body === 'string' ? a.body : JSON.stringify(a.body));
    return 0;
  } finally {
    await closeOrWarn(url, s);
  }
}
