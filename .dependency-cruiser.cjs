// The layering of src/ (docs/architecture.md), checked by `npm run lint`:
//   adapters (http, graphql, rest, pages) → domain → infra; the composition root (main, server, app, deps, workers)
//   wires them and nothing imports it. No import cycle, between modules or between folders.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'domain-not-to-adapters',
      comment: 'Domain modules know nothing of HTTP, GraphQL or REST: they never import an adapter.',
      severity: 'error',
      from: { path: '^src/domain/' },
      to: { path: '^src/adapters/' },
    },
    {
      name: 'domain-no-web-frameworks',
      comment: 'Domain modules never import Fastify, GraphQL, Yoga or Pothos.',
      severity: 'error',
      from: { path: '^src/domain/' },
      to: { path: 'node_modules/(fastify|@fastify/|graphql|graphql-yoga|@graphql-yoga/|@pothos/|@escape\\.tech/|gql\\.tada)' },
    },
    {
      name: 'rendering-at-the-edge',
      comment:
        'Pages, SVG and HTTP headers are made by the adapters (status views, card views); the domain hands them data. Email copy is the exception: it is domain policy (src/domain/emails).',
      severity: 'error',
      from: { path: '^src/domain/', pathNot: '^src/domain/emails/' },
      to: { path: '(^src/infra/html/|node_modules/badge-maker)' },
    },
    {
      name: 'infra-not-outward',
      comment: 'Infrastructure (db, cache, mail, observability, crypto, config) imports neither domain nor adapters.',
      severity: 'error',
      from: { path: '^src/infra/' },
      to: { path: '^src/(domain|adapters)/' },
    },
    {
      name: 'infra-no-web-frameworks',
      severity: 'error',
      from: { path: '^src/infra/' },
      to: { path: 'node_modules/(fastify|@fastify/|graphql|graphql-yoga|@pothos/)' },
    },
    {
      name: 'nothing-imports-the-root',
      comment: 'main.ts, server.ts, app.ts, deps.ts and workers.ts compose everything; no layer depends on them (adapters get narrow deps).',
      severity: 'error',
      from: { path: '^src/(domain|infra|adapters)/' },
      to: { path: '^src/(main|server|app|deps|workers)\\.ts$' },
    },
    {
      name: 'only-stores-import-the-database-client',
      comment:
        'Queries live in one store per area (store.ts); flows and adapters call stores and never import the database client or the generated Prisma client (docs/architecture.md).',
      severity: 'error',
      from: { path: '^src/(domain|adapters)/', pathNot: '(^|/)store\\.ts$' },
      to: { path: '^src/(infra/db/client\\.ts|generated/prisma/)' },
    },
    {
      name: 'email-copy-is-domain-policy',
      comment: 'The email kinds and their copy live in src/domain/emails; infra/mail only stores and sends.',
      severity: 'error',
      from: { path: '^src/domain/' },
      to: { path: '^src/infra/mail/templates' },
    },
    {
      name: 'no-module-cycles',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'no-folder-cycles',
      comment: 'Folders depend one way (e.g. accounts → sessions, never back).',
      severity: 'error',
      scope: 'folder',
      from: { path: '^src/' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^src/generated/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'], extensions: ['.ts', '.d.ts', '.js'] },
  },
};
