import { z } from 'zod';
import type { RepoRow } from '@trove/core';

/**
 * A repository's `config`. `version_policy` is Nexus's: a `release` repository refuses
 * SNAPSHOT versions, a `snapshot` repository refuses release versions, `mixed` (the default,
 * like Reposilite's repositories) takes both. Metadata files are accepted by all three.
 */
export const mavenConfigSchema = z
  .object({
    version_policy: z.enum(['release', 'snapshot', 'mixed']),
  })
  .strict();

export type MavenConfig = z.infer<typeof mavenConfigSchema>;
export const defaultMavenConfig: MavenConfig = { version_policy: 'mixed' };

export function configOf(repo: RepoRow): MavenConfig {
  const parsed = mavenConfigSchema.safeParse(JSON.parse(repo.config));
  return parsed.success ? parsed.data : defaultMavenConfig;
}
