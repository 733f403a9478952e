import { defineConfig } from 'vitest/config';

// Workspace packages export their TypeScript sources under the `@trove/source`
// condition, so tests run against src/ without building dependencies first.
// No `module` condition: it is for bundlers, and packages such as the AWS SDK publish
// extensionless ESM under it that Node cannot load. Tests resolve like Node does.
const conditions = ['@trove/source', 'node', 'development|production'];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    reporters: ['default', 'json'],
    outputFile: { json: './test-results/vitest.json' },
  },
});
