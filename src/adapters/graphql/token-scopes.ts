// Where a service token may go (API.md section 12), in one place for GraphQL and the REST layer
// (which runs the same documents): before an operation executes for a token, every field it
// selects (fragments included) must declare one of the token's scopes (`tokenScopes`, on the field
// or its type: field-policy.ts); anything else (sessions, tokens, security, password, email,
// slug, deletion, webhooks, fields added later) answers 403 FORBIDDEN. Sessions (viewer.scopes
// null) pass without a look. The answer is kept per document and scope set, so a token's repeated
// request costs a map lookup.
import { GraphQLError, TypeInfo, visit, visitWithTypeInfo, type DocumentNode, type GraphQLField, type GraphQLSchema } from 'graphql';
import { type AppError, forbidden, PROBLEMS } from '../../domain/errors.js';
import type { Viewer } from '../../domain/context.js';
import { problemTypeUri } from '../../domain/problems.js';
import { tokenScopesOf } from './field-policy.js';

function reaches(field: GraphQLField<unknown, unknown> | null | undefined, scopes: readonly string[]): boolean {
  const allowed = tokenScopesOf(field);
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
        if (!reaches(typeInfo.getFieldDef(), scopes)) {
          denied = `${typeInfo.getParentType()?.name ?? '?'}.${name}`;
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
    error = field === null ? null : forbidden(PROBLEMS.scopeInsufficient, `This service token's scopes (${key}) do not reach ${field}.`);
    byScopes.set(key, error);
  }
  return error;
}

/** The same refusal as a GraphQL error (Yoga's plugin), with the catalog's code and type. */
export const asGraphQLError = (error: AppError, baseUrl: string): GraphQLError =>
  new GraphQLError(error.message, { extensions: { code: error.code, type: problemTypeUri(baseUrl, error.problem) } });
