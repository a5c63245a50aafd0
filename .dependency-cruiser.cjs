/**
 * Which imports may exist (docs/architecture.md). `npm run lint` fails on any of these.
 * @type {import('dependency-cruiser').IConfiguration}
 */
module.exports = {
  forbidden: [
    {
      name: 'no-file-cycles',
      comment:
        'Files import each other in one direction only. Imports of types alone are left out: they are erased ' +
        'from the built code and set no load order (every module names the AppContext type that context.ts ' +
        'builds from modules).',
      severity: 'error',
      from: {},
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'no-module-cycles',
      comment: 'Modules (folders under src/modules) import each other in one direction only.',
      severity: 'error',
      scope: 'folder',
      from: { path: '^src/modules/[^/]+' },
      to: { circular: true },
    },
    {
      name: 'layers-below-modules',
      comment: 'db/, mail/, http/, jobs/, conditions/ and events/ serve the modules and never import one.',
      severity: 'error',
      from: { path: '^src/(db|mail|http|jobs|conditions|events)/' },
      to: { path: '^src/modules/' },
    },
    {
      name: 'mcp-through-the-api',
      comment: 'MCP tools act through the HTTP API (docs/decisions/0020); from modules they take only zod schemas.',
      severity: 'error',
      from: { path: '^src/mcp/' },
      to: { path: '^src/modules/', pathNot: ['/schemas[.]ts$', '^src/modules/activity/types[.]ts$'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
}
