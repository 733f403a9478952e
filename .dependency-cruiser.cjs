/**
 * The import rules (docs/architecture.md, its opening paragraph), checked by `npm test` before
 * anything else runs. Type-only imports count: a circle of types is still a circle.
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Dependencies point one way; a circle (type-only imports included) means a seam in the wrong place.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'parts-stay-apart',
      severity: 'error',
      comment: 'Formats and subsystems depend on core and blobstore only, never on each other.',
      from: { path: '^packages/(format-[^/]+|auth|mirror)/src/' },
      to: { path: '^packages/(format-[^/]+|auth|mirror)/', pathNot: '^packages/$1/' },
    },
    {
      name: 'packages-never-import-apps',
      severity: 'error',
      comment: 'Packages are composed by the apps, never the other way round.',
      from: { path: '^packages/' },
      to: { path: '^apps/' },
    },
    {
      name: 'core-knows-no-parts',
      severity: 'error',
      comment: 'Core defines the contracts; formats and subsystems plug into them.',
      from: { path: '^packages/core/' },
      to: { path: '^packages/(format-[^/]+|auth|mirror)/' },
    },
    {
      name: 'blobstore-stands-alone',
      severity: 'error',
      comment: 'The blob store imports no other workspace package.',
      from: { path: '^packages/blobstore/' },
      to: { path: '^(packages|apps)/', pathNot: '^packages/blobstore/' },
    },
    {
      name: 'workspace-imports-resolve',
      severity: 'error',
      comment: 'A workspace import that does not resolve is a dependency missing from package.json.',
      from: {},
      to: { couldNotResolve: true, path: '^@trove/' },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|dist|test-results)/' },
    tsConfig: { fileName: 'tsconfig.base.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['@trove/source', 'import', 'types', 'default'],
      mainFields: ['module', 'main', 'types'],
      extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.d.ts'],
    },
  },
};
