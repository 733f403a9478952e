import type { HashAlgorithm, SpooledFile } from '@trove/blobstore';
import type { Context } from 'hono';
import type { RepoAccess } from '../access/repo-access.js';
import type { OpenedRequest } from '../modules/format.js';
import type { SettingsRegistry } from '../settings/registry.js';
import type { TroveEnv } from './env.js';
import { parseRepoPath } from './repo-path.js';
import { receiveUpload } from './upload.js';
import type { Spool } from '@trove/blobstore';

/** The opening step of every format route: repository and path from the raw URL, then the access rule. */
export function openFormatRequest(c: Context<TroveEnv>, access: RepoAccess, format: string, mode: 'read' | 'write'): OpenedRequest {
  const { repo: name, path, trailingSlash } = parseRepoPath(c, format, mode);
  const cred = c.get('credential');
  const repo = mode === 'write' ? access.requireWrite(cred, name, format, new URL(c.req.url).origin) : access.requireRead(cred, name, format);
  return { repo, path, trailingSlash, uploader: cred.type === 'publish' ? cred.grant.actor : '' };
}

/** Every format upload: spooled and hashed, refused over `max_upload_bytes` (or a format's lower limit). */
export function receiveFormatUpload(
  c: Context<TroveEnv>,
  deps: { spool: Spool; settings: SettingsRegistry },
  opts: { algorithms?: HashAlgorithm[]; maxBytes?: number } = {},
): Promise<SpooledFile> {
  const limit = deps.settings.int('max_upload_bytes');
  return receiveUpload(c, deps.spool, { maxBytes: opts.maxBytes === undefined ? limit : Math.min(limit, opts.maxBytes), algorithms: opts.algorithms });
}
