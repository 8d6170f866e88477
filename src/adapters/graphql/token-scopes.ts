// Where a service token may go (API.md section 12), in one place for GraphQL and the REST layer
// (which runs the same documents): before an operation executes for a token, every field it
// selects (fragments included) must be in REACH under one of the token's scopes; anything else
// (sessions, tokens, security, password, email, slug, deletion, webhooks, fields added later)
// answers 403 FORBIDDEN. Sessions (viewer.scopes null) pass without a look. The answer is kept
// per document and scope set, so a token's repeated request costs a map lookup.
import { GraphQLError, TypeInfo, visit, visitWithTypeInfo, type DocumentNode, type GraphQLSchema } from 'graphql';
import { forbidden, type AppError } from '../../domain/errors.js';
import type { Viewer } from '../../domain/context.js';

const ACCOUNT: readonly string[] = ['account:read'];
const TUNNELS_READ: readonly string[] = ['tunnels:read', 'tunnels:write'];
const TUNNELS_WRITE: readonly string[] = ['tunnels:write'];
const ANY: readonly string[] = ['account:read', 'tunnels:read', 'tunnels:write'];

/** Schema coordinate (`Type.field`, or `Type.*` for every field of a type) → scopes that reach it. */
export const REACH: ReadonlyMap<string, readonly string[]> = new Map([
  // `me` is the way to the account's profile and to its tunnels.
  ['Query.me', ANY],
  ['Account.id', ANY],
  ['Account.email', ACCOUNT],
  ['Account.emailVerified', ACCOUNT],
  ['Account.slug', ANY],
  ['Account.plan', ACCOUNT],
  ['Account.hasPassword', ACCOUNT],
  ['Account.linkedProviders', ACCOUNT],
  ['LinkedProvider.*', ACCOUNT],
  ['Account.lastLogin', ACCOUNT],
  ['LastLogin.*', ACCOUNT],
  ['Account.mfa', ACCOUNT],
  ['MfaSummary.*', ACCOUNT],
  // Always null for a token (it never authenticates recently); GET /api/account shows it.
  ['Account.reauthenticatedUntil', ACCOUNT],
  ['Account.tunnels', TUNNELS_READ],
  ['Account.tunnelHostSuffix', TUNNELS_READ],
  ['Query.tunnel', TUNNELS_READ],
  ['Tunnel.*', TUNNELS_READ],
  // Who holds access names other people (their addresses): never a token's.
  ['Tunnel.accessGrants', []],
  ['Mutation.createTunnel', TUNNELS_WRITE],
  ['Mutation.updateTunnel', TUNNELS_WRITE],
  ['Mutation.deleteTunnel', TUNNELS_WRITE],
  // Public anyway.
  ['Query.status', ANY],
  ['StatusRollup.*', ANY],
  ['StatusComponent.*', ANY],
]);

function reaches(coordinate: string, typeName: string, scopes: readonly string[]): boolean {
  const allowed = REACH.get(coordinate) ?? REACH.get(`${typeName}.*`);
  return allowed !== undefined && allowed.some((s) => scopes.includes(s));
}

/** The first field of the document the scopes do not reach, as `Type.field`; null when all do. */
export function firstUnreachable(schema: GraphQLSchema, document: DocumentNode, scopes: readonly string[]): string | null {
  const typeInfo = new TypeInfo(schema);
  let denied: string | null = null;
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Field(node) {
        if (denied !== null) return false;
        const name = node.name.value;
        if (name === '__typename') return undefined;
        const parent = typeInfo.getParentType();
        const typeName = parent?.name ?? '?';
        const coordinate = `${typeName}.${name}`;
        if (!reaches(coordinate, typeName, scopes)) {
          denied = coordinate;
          return false;
        }
        return undefined;
      },
    }),
  );
  return denied;
}

const decided = new WeakMap<DocumentNode, Map<string, AppError | null>>();

/** FORBIDDEN when a service token's scopes do not reach every field of `document`; null otherwise. */
export function tokenScopeError(schema: GraphQLSchema, document: DocumentNode, viewer: Viewer | null): AppError | null {
  const scopes = viewer?.scopes;
  if (!scopes) return null;
  const key = scopes.join(' ');
  let byScopes = decided.get(document);
  if (byScopes === undefined) decided.set(document, (byScopes = new Map()));
  let error = byScopes.get(key);
  if (error === undefined) {
    const field = firstUnreachable(schema, document, scopes);
    error = field === null ? null : forbidden(`This service token's scopes (${key}) do not reach ${field}.`);
    byScopes.set(key, error);
  }
  return error;
}

/** The same refusal as a GraphQL error (Yoga's plugin), with the catalog's code. */
export const asGraphQLError = (error: AppError): GraphQLError => new GraphQLError(error.message, { extensions: { code: error.code } });
