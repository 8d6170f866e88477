// What a service token may reach (API.md section 12). The adapters enforce it in one place
// (adapters/graphql/token-scopes.ts); the domain only names the scopes and checks a request's list.
import { invalidInput, PROBLEMS } from '../errors.js';

export const TOKEN_SCOPES = ['tunnels:read', 'tunnels:write', 'account:read'] as const;
export type TokenScope = (typeof TOKEN_SCOPES)[number];

export const isTokenScope = (s: unknown): s is TokenScope => typeof s === 'string' && (TOKEN_SCOPES as readonly string[]).includes(s);

/** A non-empty list of known scopes, duplicates dropped, in the catalog's order. */
export function parseScopes(scopes: unknown): TokenScope[] {
  if (!Array.isArray(scopes) || scopes.length === 0) throw invalidInput(PROBLEMS.invalidTokenInput, 'scopes', `Choose at least one scope: ${TOKEN_SCOPES.join(', ')}.`);
  const unknown = scopes.filter((s) => !isTokenScope(s));
  if (unknown.length > 0) throw invalidInput(PROBLEMS.invalidTokenInput, 'scopes', `${JSON.stringify(unknown[0])} is not a scope; the scopes are ${TOKEN_SCOPES.join(', ')}.`);
  return TOKEN_SCOPES.filter((s) => scopes.includes(s));
}
