import { z } from 'zod';
import { isArchitecture } from './names.js';

/** A repository's config: which architectures every distribution publishes even before a package of it exists. */
export const debianConfigSchema = z
  .object({
    architectures: z
      .array(z.string().refine((a) => isArchitecture(a) && a !== 'all', 'not a Debian architecture name'))
      .min(1)
      .max(32),
    origin: z.string().regex(/^[^\n]{1,128}$/).optional(),
    label: z.string().regex(/^[^\n]{1,128}$/).optional(),
    /** The distribution imported packages join (a mirrored Nexus apt repository has exactly one); default `stable`. */
    distribution: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._+-]{0,63}$/).refine((d) => d !== 'by-hash', 'reserved name').optional(),
  })
  .strict();

export type DebianConfig = z.infer<typeof debianConfigSchema>;

export const defaultDebianConfig: DebianConfig = { architectures: ['amd64', 'arm64'] };

export function configOf(raw: string | Record<string, unknown>): DebianConfig {
  const parsed = debianConfigSchema.safeParse(typeof raw === 'string' ? JSON.parse(raw) : raw);
  return parsed.success ? parsed.data : defaultDebianConfig;
}
