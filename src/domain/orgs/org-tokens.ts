// An organization's service tokens (API.md section 18): made, listed and revoked by its admins and
// owners, with a verified address and a recent authentication as a person's own (section 12). The
// token's account is the organization: it reaches the organization's tunnels only, within its
// scopes (tunnels:read, tunnels:write: account:read names no account here), and outlives the member
// who made it (`created_by` keeps who). Creation, listing and revocation are the tokens area's
// (tokens/service-tokens.ts, which records both in the organization's audit log and tells the
// member who made it); a revoked one stops on its next request on every instance, as any token.
import type { DomainDeps } from '../context.js';
import { invalidInput, PROBLEMS } from '../errors.js';
import { orgAccess, type Actor } from '../membership/access.js';
import { ORG_TOKEN_SCOPES } from '../membership/roles.js';
import { guardAddition } from '../sessions/recent-auth.js';
import { issueServiceToken, listServiceTokens, revokeServiceToken, tokenSpec, type CreatedToken, type TokenInput } from '../tokens/service-tokens.js';
import type { TokenRow } from '../tokens/store.js';

type FlowDeps = Parameters<typeof issueServiceToken>[0];

export async function createOrgToken(deps: FlowDeps, actor: Actor, slug: string, input: TokenInput): Promise<CreatedToken> {
  const scope = await orgAccess(deps, actor, slug, 'tokens.manage');
  const spec = tokenSpec(input);
  const beyond = spec.scopes.filter((s) => !(ORG_TOKEN_SCOPES as readonly string[]).includes(s));
  if (beyond.length > 0) {
    throw invalidInput(
      PROBLEMS.invalidTokenInput,
      'scopes',
      `An organization token reaches the organization’s tunnels only: its scopes are ${ORG_TOKEN_SCOPES.join(' and ')} (${beyond.join(', ')} is for a person’s own token).`,
    );
  }
  await guardAddition(deps, actor.viewer, { verified: true, recent: true });
  return issueServiceToken(deps, scope.org.id, spec, actor.client, { org: scope });
}

/** Newest first, expired ones included, with the member who made each. */
export async function listOrgTokens(deps: Pick<DomainDeps, 'db'>, actor: Actor, slug: string): Promise<TokenRow[]> {
  const scope = await orgAccess(deps, actor, slug, 'tokens.manage');
  return listServiceTokens(deps, scope.org.id);
}

export async function revokeOrgToken(deps: FlowDeps, actor: Actor, slug: string, id: string): Promise<void> {
  const scope = await orgAccess(deps, actor, slug, 'tokens.manage');
  await revokeServiceToken(deps, scope.org.id, id, actor.client, actor);
}
