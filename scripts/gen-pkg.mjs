// one-off generator for the workspace's package manifests (kept for reference when adding a package)
import { writeFileSync, mkdirSync } from 'node:fs';
const pkgs = {
  'packages/core': { name: '@trove/core', deps: { hono: '^4.9.0', zod: '^4.1.0', pino: '^9.9.0', 'drizzle-orm': '^0.44.5', 'better-sqlite3': '^12.4.1' }, dev: { '@types/better-sqlite3': '^7.6.13', 'drizzle-kit': '^0.31.4' } },
  'packages/blobstore': { name: '@trove/blobstore', deps: { '@aws-sdk/client-s3': '^3.890.0', '@aws-sdk/s3-request-presigner': '^3.890.0', '@aws-sdk/lib-storage': '^3.890.0' }, dev: { s3rver: '^3.7.1' } },
  'packages/format-raw': { name: '@trove/format-raw', deps: { '@trove/core': 'workspace:*', '@trove/blobstore': 'workspace:*', hono: '^4.9.0', zod: '^4.1.0' } },
  'packages/format-maven': { name: '@trove/format-maven', deps: { '@trove/core': 'workspace:*', '@trove/blobstore': 'workspace:*', hono: '^4.9.0', zod: '^4.1.0', 'fast-xml-parser': '^5.2.5' } },
  'packages/format-debian': { name: '@trove/format-debian', deps: { '@trove/core': 'workspace:*', '@trove/blobstore': 'workspace:*', hono: '^4.9.0', zod: '^4.1.0', openpgp: '^6.2.2', 'tar-stream': '^3.1.7' }, dev: { '@types/tar-stream': '^3.1.4' } },
  'packages/auth': { name: '@trove/auth', deps: { '@trove/core': 'workspace:*', hono: '^4.9.0', zod: '^4.1.0', otplib: '^12.0.1', '@simplewebauthn/server': '^13.2.1', '@noble/ed25519': '^3.0.0', jose: '^6.1.0', 'oauth4webapi': '^3.8.1' } },
  'packages/mirror': { name: '@trove/mirror', deps: { '@trove/core': 'workspace:*', '@trove/blobstore': 'workspace:*', hono: '^4.9.0', zod: '^4.1.0' } },
  'apps/server': { name: '@trove/server', deps: { '@trove/core': 'workspace:*', '@trove/blobstore': 'workspace:*', '@trove/format-raw': 'workspace:*', '@trove/format-maven': 'workspace:*', '@trove/format-debian': 'workspace:*', '@trove/auth': 'workspace:*', '@trove/mirror': 'workspace:*', hono: '^4.9.0', '@hono/node-server': '^1.19.0', pino: '^9.9.0' }, dev: { '@trove/web': 'workspace:*' }, bin: { trove: './dist/main.js' } },
};
for (const [dir, p] of Object.entries(pkgs)) {
  const isApp = dir.startsWith('apps/');
  const manifest = {
    name: p.name, version: '0.1.0', private: true, type: 'module',
    ...(p.bin ? { bin: p.bin } : {}),
    exports: isApp ? undefined : {
      '.': { '@trove/source': './src/index.ts', types: './dist/index.d.ts', default: './dist/index.js' },
      './*': { '@trove/source': './src/*.ts', types: './dist/*.d.ts', default: './dist/*.js' },
    },
    files: ['dist', 'src', 'drizzle'],
    scripts: { build: 'tsc -p tsconfig.build.json', typecheck: 'tsc -p tsconfig.json --noEmit', test: 'vitest run' },
    dependencies: p.deps, devDependencies: p.dev,
  };
  mkdirSync(dir + '/src', { recursive: true });
  writeFileSync(dir + '/package.json', JSON.stringify(manifest, null, 2) + '\n');
  writeFileSync(dir + '/tsconfig.json', JSON.stringify({ extends: '../../tsconfig.base.json', compilerOptions: { noEmit: true }, include: ['src'] }, null, 2) + '\n');
  writeFileSync(dir + '/tsconfig.build.json', JSON.stringify({ extends: '../../tsconfig.base.json', compilerOptions: { outDir: 'dist', rootDir: 'src', customConditions: [], noEmit: false }, include: ['src'], exclude: ['src/**/*.test.ts', 'src/**/*.case.ts'] }, null, 2) + '\n');
  writeFileSync(dir + '/vitest.config.ts', "export { default } from '../../vitest.shared.ts';\n");
}
