// Typed GraphQL documents for the REST table (gql.tada): each document's result type is inferred
// from the schema (graphql-env.d.ts, generated from graphql/schema.graphql by `npm run
// schema:print` and `npm run typecheck`), so a route's response mapping is checked, not cast.
import { initGraphQLTada } from 'gql.tada';
import type { introspection } from './graphql-env.js';

export const graphql = initGraphQLTada<{
  introspection: introspection;
  // As they travel in a GraphQL result: DateTime is serialized to an ISO string.
  scalars: { DateTime: string; EmailAddress: string };
  // Fragments only share field lists here; their fields are read directly.
  disableMasking: true;
}>();

export type { ResultOf, VariablesOf } from 'gql.tada';
