// Builds the CLI into ONE file with no runtime dependencies (dist/trove.mjs), then packs the
// installable package (dist/trove-cli.tgz) that the server offers at /downloads/trove-cli.tgz.
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { chmodSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const pkg = JSON.parse(readFileSync(new URL('package.json', import.meta.url), 'utf8'));
rmSync(new URL('dist', import.meta.url), { recursive: true, force: true });
await build({
  entryPoints: [`${here}src/main.ts`],
  outfile: `${here}dist/trove.mjs`,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  banner: { js: '#!/usr/bin/env node' },
  define: { TROVE_CLI_VERSION: JSON.stringify(pkg.version) },
  legalComments: 'none',
  logLevel: 'warning',
});
chmodSync(`${here}dist/trove.mjs`, 0o755);
// npm pack, not pnpm pack: it is what `npm install -g URL` unpacks, and it needs no workspace.
const out = execFileSync('npm', ['pack', '--silent', '--pack-destination', 'dist'], { cwd: here, encoding: 'utf8' }).trim().split('\n').pop();
renameSync(`${here}dist/${out}`, `${here}dist/trove-cli.tgz`);
