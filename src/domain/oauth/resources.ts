// The protected resources of the authorization server (API.md section 13): the `/mcp` URL of an
// `oauth` tunnel, on its tunnel host or its custom domain, exactly. Who may be granted access:
// the owner, an owning organization's members, and the tunnel's allowed emails (tunnels/access.ts).
import type { DomainDeps } from '../context.js';
import { queryOf } from '../cards/lookup.js';
import { isAllowed } from '../tunnels/access.js';
import { tunnelHost } from '../tunnels/names.js';
import { findAccountForGrant, findOAuthTunnel, type OAuthTunnelRow } from './store.js';
import { readRole } from '../membership/store.js';
import { decide } from '../membership/roles.js';

export interface OAuthResource {
  /** The resource indicator: https://<host>/mcp. */
  resource: string;
  host: string;
  tunnel: OAuthTunnelRow;
}

type ResourceDeps = Pick<DomainDeps, 'db'> & { config: { zone: string } };

/** The `oauth` tunnel a resource indicator names, or null (public, unknown, or not an /mcp URL). */
export async function oauthResource(deps: ResourceDeps, resource: unknown): Promise<OAuthResource | null> {
  if (typeof resource !== 'string' || resource.length > 300) return null;
  let url: URL;
  try {
    url = new URL(resource);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' || url.port !== '' || url.pathname !== '/mcp' || url.search !== '' || url.hash !== '' || url.username || url.password) return null;
  if (`https://${url.hostname}/mcp` !== resource) return null;
  const query = queryOf(url.hostname, deps.config.zone);
  if (!query) return null;
  const tunnel = await findOAuthTunnel(deps.db, query);
  if (!tunnel) return null;
  const onDefault = tunnelHost(tunnel.subdomain, tunnel.slug, deps.config.zone) === url.hostname;
  if (!onDefault && tunnel.customDomain !== url.hostname) return null;
  return { resource, host: url.hostname, tunnel };
}

/** The account (null when gone) and whether it may be granted access to the resource's tunnel. */
async function judge(deps: Pick<DomainDeps, 'db'>, r: OAuthResource, accountId: string) {
  const [account, role] = await Promise.all([findAccountForGrant(deps.db, accountId), r.tunnel.ownerIsOrg ? readRole(deps.db, r.tunnel.ownerId, accountId) : null]);
  // A member of the owning organization, as the one rule of roles says (membership/roles.ts).
  const member = role !== null && decide({ kind: 'member', role, scopes: null }, 'tunnels.connect') === 'allowed';
  return { account, allowed: account !== null && isAllowed({ ownerId: r.tunnel.ownerId, allowedEmails: r.tunnel.allowedEmails }, account, member) };
}

/**
 * The account when it exists and may be granted access to the resource's tunnel (the owner
 * always may; for an organization's tunnel, its members with a verified address); else null.
 */
export async function allowedAccount(deps: Pick<DomainDeps, 'db'>, r: OAuthResource, accountId: string): Promise<{ id: string; email: string } | null> {
  const { account, allowed } = await judge(deps, r, accountId);
  return allowed ? account : null;
}

export const mayAccess = async (deps: Pick<DomainDeps, 'db'>, r: OAuthResource, accountId: string): Promise<boolean> => (await allowedAccount(deps, r, accountId)) !== null;

/** Why the account may not be granted access, in the user's words; null when it may. */
export async function accessRefusal(deps: Pick<DomainDeps, 'db'>, r: OAuthResource, accountId: string): Promise<string | null> {
  const { account, allowed } = await judge(deps, r, accountId);
  if (account === null) return 'Your account no longer exists.';
  if (allowed) return null;
  return account.emailVerified
    ? 'Your account is not allowed on this tunnel. Ask its owner to add your address.'
    : 'Verify your email address first: only verified addresses can be allowed on a tunnel.';
}
