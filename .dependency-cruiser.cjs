/** Module boundaries that `npm run lint` keeps; docs/architecture.md explains them. */
module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      comment: 'A cycle makes the start-up order and the owner of a change unclear.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-folder-cycles',
      comment: 'Modules form a hierarchy: two folders that import each other are one module, or need a parameter.',
      severity: 'error',
      scope: 'folder',
      from: {},
      to: { circular: true },
    },
    {
      name: 'domain-is-pure',
      comment: 'src/domain holds rules without I/O: it imports neither the platform nor the modules.',
      severity: 'error',
      from: { path: '^src/domain/' },
      to: { path: '^src/(platform|modules)/' },
    },
    {
      name: 'platform-below-modules',
      comment: 'src/platform serves every module and knows none of them; modules plug in through AppContext.',
      severity: 'error',
      from: { path: '^src/platform/' },
      to: { path: '^src/modules/' },
    },
    {
      name: 'repo-is-private',
      comment: "A module's repo.ts (and its other *-repo.ts) is its own: other modules go through its service functions.",
      severity: 'error',
      from: { path: '^src/modules/([^/]+)/' },
      to: { path: '^src/modules/([^/]+)/[a-z-]*repo\\.ts$', pathNot: '^src/modules/$1/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
