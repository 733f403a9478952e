import { Hono } from 'hono';
import { defineFormat, type FormatContext, type TroveEnv } from '@trove/core';
import { importMavenFile } from './import.js';
import { defaultMavenConfig, mavenConfigSchema, type MavenConfig } from './config.js';
import { readHandler } from './read.js';
import { createState } from './state.js';
import { mavenUsage } from './usage.js';
import { writeHandler } from './write.js';

function routes(ctx: FormatContext) {
  // One state per instance: the metadata locks and digest memory are shared by every route of this mount.
  const st = createState(ctx);
  const app = new Hono<TroveEnv>();
  const read = readHandler(st);
  // Hono answers HEAD through GET routes; serveAsset and the index send no body for HEAD.
  app.get('/:repo', read);
  app.get('/:repo/*', read);
  app.put('/:repo/*', writeHandler(st));
  return app;
}

/** Hosted Maven repositories, also used by Gradle builds and Gradle plugins (`pluginManagement`). */
export const mavenFormat = defineFormat<MavenConfig>({
  name: 'maven',
  title: 'Maven and Gradle',
  defaultConfig: defaultMavenConfig,
  configSchema: mavenConfigSchema,
  create: (ctx) => ({ routes: routes(ctx), usage: mavenUsage, importAsset: (input) => importMavenFile(ctx, input) }),
});

export default mavenFormat;
export { compareVersions } from './versions.js';
export { parseMavenPath, isMutable, type MavenPath } from './layout.js';
export { parseMetadata, mergeMetadata, serializeMetadata, type MetadataDoc } from './metadata.js';
export type { MavenConfig } from './config.js';
