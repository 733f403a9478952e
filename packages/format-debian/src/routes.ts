import { Hono, type Context, type Handler } from 'hono';
import { notFound, redirectOption, serveAsset, serveBytes, type RepoRow, type TroveEnv } from '@trove/core';
import { ingestDeb } from './ingest.js';
import { checkComponent, checkDist } from './names.js';
import type { DebianState } from './state.js';

const INDEX_TYPES: [RegExp, string][] = [
  [/\.gz$/, 'application/gzip'],
  [/\.xz$/, 'application/x-xz'],
  [/Release\.gpg$/, 'application/pgp-signature'],
  [/./, 'text/plain; charset=utf-8'],
];

/** Routes under `/debian`, relative to it. */
export function debianRoutes(state: DebianState) {
  const { ctx } = state;
  const app = new Hono<TroveEnv>();

  const upload = async (c: Context<TroveEnv>) => {
    const { repo, path, uploader } = ctx.open(c, 'write');
    const [, dist, component, ...rest] = path.split('/');
    if (!dist || !component || rest.length) throw notFound('not found');
    checkDist(dist);
    checkComponent(component);
    const file = await ctx.receive(c, { algorithms: ['md5'] });
    const { status, answer } = await ingestDeb(state, repo, dist, component, file, uploader);
    return c.json(answer, status);
  };
  app.put('/:repo/upload/*', upload);
  app.post('/:repo/upload/*', upload);

  // Hono answers HEAD through GET routes; both responders send no body for HEAD.
  app.get('/:repo/*', async (c) => {
    const { repo, path } = ctx.open(c, 'read');
    if (path.startsWith('dists/')) return serveIndex(c, repo, path.slice('dists/'.length));
    if (path.startsWith('pool/')) {
      const asset = ctx.assets.get(repo, path);
      if (!asset) throw notFound(`${path} not found`);
      return serveAsset(c, ctx.blobs, asset, {
        redirect: redirectOption(ctx.settings),
        filename: path.split('/').pop(),
        cacheControl: repo.anonymousRead ? 'public, max-age=86400' : 'private, max-age=86400',
        // A pool file is an asset row (written only through core's AssetService, which bumps the
        // `assets` generation) and its repository's row. Not so dists/: its files live in this
        // format's own tables and change with no `assets` bump, so serveIndex never opts in.
        answerFromMemory: true,
      });
    }
    throw notFound(`${path || '/'} not found`);
  });

  /**
   * Index files come from the current generation, looked up with the generation pointer in one
   * statement; their bytes are read only for a body, so a 304, HEAD or 416 costs one row.
   */
  function serveIndex(c: Context<TroveEnv>, repo: RepoRow, rest: string) {
    const slash = rest.indexOf('/');
    if (slash <= 0) throw notFound(`dists/${rest} not found`);
    const dist = rest.slice(0, slash);
    const file = state.store.read(repo.id, dist, rest.slice(slash + 1));
    if (!file) throw notFound(`dists/${rest} not found`);
    const byHash = rest.includes('/by-hash/');
    return serveBytes(
      c,
      {
        etag: `"${file.sha256}"`,
        lastModified: new Date(file.builtAt),
        size: file.size,
        contentType: INDEX_TYPES.find(([re]) => re.test(rest))![1],
        cacheControl: `${repo.anonymousRead ? 'public' : 'private'}, ${byHash ? 'max-age=31536000, immutable' : 'max-age=0, must-revalidate'}`,
      },
      // Called at once, as body() requires; better-sqlite3 hands out a fresh Buffer per row, so a range is a view of it.
      () => file.body(),
    );
  }

  return app;
}

/** `GET /keys/debian.asc`, public: apt users fetch it before they have any credential. */
export function publicKeyRoute(state: DebianState): Handler<TroveEnv> {
  return async (c) => {
    // On a first start this waits for the key being generated in the background.
    const key = await state.keys.get();
    return c.body(key.publicArmored, 200, { 'Content-Type': 'application/pgp-keys', 'Cache-Control': 'no-cache' });
  };
}
