import { defineConfig } from 'vitest/config';

// Workspace packages export their TypeScript sources under the `@trove/source`
// condition, so tests run against src/ without building dependencies first.
const conditions = ['@trove/source', 'module', 'node', 'development|production'];

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
