// Configures the Pothos builder only; types live in ./types, one file per domain.
import SchemaBuilder from '@pothos/core';
import ScopeAuthPlugin from '@pothos/plugin-scope-auth';
import RelayPlugin from '@pothos/plugin-relay';
import FieldPolicyPlugin from './field-policy.js';
import { GraphQLScalarType } from 'graphql';
import { DateTimeResolver, EmailAddressResolver, JSONObjectResolver } from 'graphql-scalars';
import { signInRequired } from '../errors.js';
import { isoString } from '../../infra/instant.js';
import type { GraphQLContext } from './context.js';

export const builder = new SchemaBuilder<{
  Context: GraphQLContext;
  AuthScopes: { signedIn: boolean };
  Scalars: {
    DateTime: { Input: Date; Output: Date };
    EmailAddress: { Input: string; Output: string };
    JSONObject: { Input: Record<string, unknown>; Output: Record<string, unknown> };
  };
  DefaultFieldNullability: false;
}>({
  plugins: [ScopeAuthPlugin, RelayPlugin, FieldPolicyPlugin],
  // Connections only (the security activity): no global `node`/`nodes` lookups to secure.
  relay: { nodeQueryOptions: false, nodesQueryOptions: false, clientMutationId: 'omit', cursorType: 'String' },
  defaultFieldNullability: false,
  scopeAuth: {
    authScopes: (ctx) => ({ signedIn: ctx.viewer !== null }),
    unauthorizedError: (_parent, ctx) => signInRequired(ctx.presentedBearer),
  },
});

// graphql-scalars' DateTime, serializing a valid Date straight to its ISO string: the same bytes
// in the response (a Date's JSON is that string), without JSON.stringify calling toJSON on every
// date of a list (a list of sessions or events is mostly dates), and by arithmetic rather than
// toISOString (instant.ts, ADR 21).
const dateTime = DateTimeResolver.toConfig();
builder.addScalarType(
  'DateTime',
  new GraphQLScalarType({
    ...dateTime,
    serialize: (value: unknown) => (value instanceof Date && !Number.isNaN(value.getTime()) ? isoString(value) : dateTime.serialize!(value)),
  }),
);
builder.addScalarType('EmailAddress', EmailAddressResolver);
builder.addScalarType('JSONObject', JSONObjectResolver);

builder.queryType({});
builder.mutationType({});
