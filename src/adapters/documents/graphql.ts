// Typed GraphQL documents (gql.tada), shared by the REST table and the console's browser code:
// each document's result and variables types are inferred from the schema (graphql-env.d.ts,
// generated from graphql/schema.graphql by `npm run schema:print` and `npm run typecheck`), so a
// route's response mapping and a console page's use of an answer are checked, not cast. Imports
// nothing of the server: the console bundles it.
import { initGraphQLTada } from 'gql.tada';
import type { introspection } from './graphql-env.js';

export const graphql = initGraphQLTada<{
  introspection: introspection;
  // As they travel in a GraphQL result: DateTime is serialized to an ISO string.
  scalars: { DateTime: string; EmailAddress: string; JSONObject: Record<string, unknown> };
  // Fragments only share field lists here; their fields are read directly.
  disableMasking: true;
}>();

export type { ResultOf, VariablesOf } from 'gql.tada';
