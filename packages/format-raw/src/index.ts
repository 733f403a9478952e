import { Hono, type Context } from 'hono';
import { z } from 'zod';
import mime from 'mime-types';
import {
  badRequest,
  defineFormat,
  notFound,
  parseRepoPath,
  receiveUpload,
  redirectOption,
  serveAsset,
  type AssetRow,
  type FormatContext,
  type TroveEnv,
} from '@trove/core';

/** Types a client sends when it has no idea (curl -T sends none; browsers' forms send these). */
const GENERIC_TYPES = new Set(['application/octet-stream', 'application/x-www-form-urlencoded', 'multipart/form-data']);

function contentTypeFor(path: string, sent: string | undefined): string {
  const declared = sent?.split(';')[0]?.trim().toLowerCase();
  if (declared && !GENERIC_TYPES.has(declared) && /^[\w.+-]+\/[\w.+-]+$/.test(declared)) return sent!.trim();
  return mime.contentType(path.split('/').pop() ?? '') || 'application/octet-stream';
}

function uploadAnswer(asset: AssetRow) {
  return { path: asset.path, size: asset.size, sha256: asset.sha256 };
}

function routes(ctx: FormatContext) {
  const app = new Hono<TroveEnv>();

  const read = async (c: Context<TroveEnv>) => {
    const { repo: name, path } = parseRepoPath(c, 'raw');
    const repo = ctx.access.requireRead(c.get('credential'), name, 'raw');
    if (!path) throw notFound('not found');
    const asset = ctx.assets.get(repo, path);
    if (!asset) throw notFound(`${path} not found`);
    return serveAsset(c, ctx.blobs, asset, {
      redirect: redirectOption(ctx.settings),
      filename: path.split('/').pop(),
      answerFromMemory: true, // a raw file's answer is its asset row's bytes, for whoever may read the repository
    });
  };
  app.get('/raw/:repo/*', read); // Hono answers HEAD through GET routes; serveAsset sends no body for HEAD

  app.put('/raw/:repo/*', async (c) => {
    const { repo: name, path } = parseRepoPath(c, 'raw');
    const repo = ctx.access.requireWrite(c.get('credential'), name, 'raw');
    if (!path) throw badRequest('a file path is required after the repository name');
    // sha256 (identity, ETag) and sha1 only: plain-file clients fetch no side files, and md5 in the
    // same pass cost a third of upload throughput (bench W4).
    const file = await receiveUpload(c, ctx.spool, { maxBytes: ctx.settings.int('max_upload_bytes'), algorithms: ['sha1'] });
    const cred = c.get('credential');
    const { status, asset } = await ctx.assets.commit({
      repo,
      path,
      file,
      contentType: contentTypeFor(path, c.req.header('content-type')),
      uploader: cred.type === 'publish' ? cred.grant.actor : '',
      onExisting: repo.overwrite === 'allow' ? 'replace' : 'conflict',
      conflictMessage: `${path} already exists with different content and repository ${repo.name} does not allow overwrites`,
    });
    return c.json(uploadAnswer(asset), status === 'created' ? 201 : 200);
  });

  return app;
}

export const rawFormat = defineFormat({
  name: 'raw',
  title: 'Raw files',
  defaultConfig: {},
  configSchema: z.object({}).strict(),
  routes,
  usage({ baseUrl, repo }) {
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
  },
});

export default rawFormat;
