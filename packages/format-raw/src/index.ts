import { Hono } from 'hono';
import { z } from 'zod';
import mime from 'mime-types';
import {
  badRequest,
  defineFormat,
  notFound,
  redirectOption,
  serveAsset,
  type AssetRow,
  type FormatContext,
  type TroveEnv,
  type UsageInput,
  type UsageSnippet,
} from '@trove/core';

/** Types a client sends when it has no idea (curl -T sends none; browsers' forms send these). */
const GENERIC_TYPES = new Set(['application/octet-stream', 'application/x-www-form-urlencoded', 'multipart/form-data']);

/** A declared charset worth keeping: a token, nothing a browser could read as a second type. */
const CHARSET = /;\s*charset=("?)([\w.:-]{1,40})\1\s*(;|$)/i;

/**
 * The stored type: the client's `type/subtype` and its charset, and nothing else of the header it sent.
 * A browser reads `application/json; x=1, text/html` as HTML, so parameters never pass through.
 */
function contentTypeFor(path: string, sent: string | undefined): string {
  const declared = sent?.split(';')[0]?.trim().toLowerCase();
  if (declared && !GENERIC_TYPES.has(declared) && /^[\w.+-]+\/[\w.+-]+$/.test(declared)) {
    const charset = CHARSET.exec(sent!)?.[2]?.toLowerCase();
    return charset ? `${declared}; charset=${charset}` : declared;
  }
  return mime.contentType(path.split('/').pop() ?? '') || 'application/octet-stream';
}

function uploadAnswer(asset: AssetRow) {
  return { path: asset.path, size: asset.size, sha256: asset.sha256 };
}

function routes(ctx: FormatContext) {
  const app = new Hono<TroveEnv>();

  // Hono answers HEAD through GET routes; serveAsset sends no body for HEAD.
  app.get('/:repo/*', async (c) => {
    const { repo, path, trailingSlash } = ctx.open(c, 'read');
    if (!path || trailingSlash) throw notFound('not found'); // a raw repository lists no directories
    const asset = ctx.assets.get(repo, path);
    if (!asset) throw notFound(`${path} not found`);
    return serveAsset(c, ctx.blobs, asset, {
      redirect: redirectOption(ctx.settings),
      filename: path.split('/').pop(),
      answerFromMemory: true, // a raw file's answer is its asset row's bytes, for whoever may read the repository
    });
  });

  app.put('/:repo/*', async (c) => {
    const { repo, path, uploader, trailingSlash } = ctx.open(c, 'write');
    if (!path) throw badRequest('a file path is required after the repository name');
    // `dir/` is not the file `dir`: storing it there would answer for a path the client did not name.
    if (trailingSlash) throw badRequest('a file path cannot end with "/"');
    // sha256 (identity, ETag) and sha1 only: plain-file clients fetch no side files, and md5 in the
    // same pass cost a third of upload throughput (bench W4).
    const file = await ctx.receive(c, { algorithms: ['sha1'] });
    const { status, asset } = await ctx.assets.commit({
      repo,
      path,
      file,
      contentType: contentTypeFor(path, c.req.header('content-type')),
      uploader,
      onExisting: repo.overwrite === 'allow' ? 'replace' : 'conflict',
      conflictMessage: `${path} already exists with different content and repository ${repo.name} does not allow overwrites`,
    });
    return c.json(uploadAnswer(asset), status === 'created' ? 201 : 200);
  });

  return app;
}

function usage({ baseUrl, repo }: UsageInput): UsageSnippet[] {
  const url = `${baseUrl}/raw/${repo.name}`;
  const auth = repo.anonymousRead ? '' : ' -u "reader:$TROVE_TOKEN"';
  return [
    {
      title: 'Upload a file with the trove CLI (it opens and closes the publish session)',
      lang: 'shell',
      code: `npm install -g ${baseUrl}/downloads/trove-cli.tgz   # once\ntrove login ${baseUrl}                                # once per machine (CI: --oidc)\ntrove upload ${repo.name} ./file.tar.gz path/to/file.tar.gz   # -> ${url}/path/to/file.tar.gz`,
    },
    { title: 'Upload a file (needs a publish session token)', lang: 'shell', code: `curl -fsS -u "ci:$TROVE_PUBLISH_TOKEN" -T ./file.tar.gz ${url}/path/to/file.tar.gz` },
    { title: 'Download a file', lang: 'shell', code: `curl -fsSL${auth} -o file.tar.gz ${url}/path/to/file.tar.gz` },
    { title: 'Check a file without downloading it', lang: 'shell', code: `curl -fsSI${auth} ${url}/path/to/file.tar.gz` },
  ];
}

export const rawFormat = defineFormat({
  name: 'raw',
  title: 'Raw files',
  defaultConfig: {},
  configSchema: z.object({}).strict(),
  create: (ctx) => ({ routes: routes(ctx), usage }),
});

export default rawFormat;
