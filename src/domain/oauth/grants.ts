// Who holds access to OAuth-protected tunnels (API.md section 13): an account's authorized
// applications, and per tunnel, the grants its owner sees. Revoking deletes the grant and
// everything it issued (codes, refresh tokens); its access tokens turn inactive at the edge's next
// introspection, since introspection asks for the grant.
import { changeAccount } from '../activity/account-change.js';
import type { ClientInfo, DomainDeps } from '../context.js';
import { notFound, PROBLEMS } from '../errors.js';
import { tunnelAccess } from '../tunnels/tunnel-access.js';
import type { Actor } from '../membership/access.js';
import { mcpUrlsOf } from '../tunnels/names.js';
import { oauthResource } from './resources.js';
import { clientNames, deleteGrantAndModels, findGrant, holderEmails, selectAccountGrants, selectTunnelGrants, type GrantRow } from './store.js';

type GrantDeps = Pick<DomainDeps, 'db' | 'clock' | 'events' | 'outbox' | 'mailNotify' | 'webhookNotify'> & { config: { zone: string } };

export interface GrantView {
  id: string;
  clientId: string;
  clientName: string;
  resource: string;
  /** Null once the tunnel no longer requires OAuth (or is gone). */
  tunnel: { id: string; host: string } | null;
  scopes: string[];
  createdAt: Date;
  lastUsedAt: Date | null;
  /** The holder's address (the tunnel owner's view). */
  email: string | null;
}

// One lookup per distinct client, resource and holder, not per grant: a tunnel's owner may list
// many holders of one resource, an account many grants of one client.
async function views(deps: GrantDeps, rows: readonly GrantRow[], withEmail: boolean): Promise<GrantView[]> {
  const distinct = <T>(values: T[]) => [...new Set(values)];
  const resourceOf = (g: GrantRow) => Object.keys(g.resources)[0] ?? '';
  const [names, emails, resources] = await Promise.all([
    clientNames(deps.db, distinct(rows.map((r) => r.clientId))),
    withEmail ? holderEmails(deps.db, distinct(rows.map((r) => r.accountId))) : new Map<string, string>(),
    Promise.all(distinct(rows.map(resourceOf)).map(async (r) => [r, await oauthResource(deps, r)] as const)).then((pairs) => new Map(pairs)),
  ]);
  return rows.map((g) => {
    const [resource = '', scope = ''] = Object.entries(g.resources)[0] ?? [];
    const found = resources.get(resource);
    return {
      id: g.id,
      clientId: g.clientId,
      clientName: names.get(g.clientId) ?? g.clientId,
      resource,
      tunnel: found ? { id: found.tunnel.id, host: found.host } : null,
      scopes: scope.split(' ').filter(Boolean),
      createdAt: g.createdAt,
      lastUsedAt: g.lastUsedAt,
      email: emails.get(g.accountId) ?? null,
    };
  });
}

/** The account's authorized applications, newest first. */
export async function listAccountGrants(deps: GrantDeps, accountId: string): Promise<GrantView[]> {
  return views(deps, await selectAccountGrants(deps.db, accountId, deps.clock()), false);
}

async function revoke(deps: GrantDeps, grant: GrantRow, by: 'holder' | 'tunnel owner', client: ClientInfo): Promise<void> {
  await changeAccount(deps, grant.accountId, async (tx, change) => {
    await deleteGrantAndModels(tx, grant.id);
    await change.record({
      type: 'oauth_grant_revoked',
      client,
      at: deps.clock(),
      detail: { grant_id: grant.id, client_id: grant.clientId.slice(0, 200), resource: Object.keys(grant.resources)[0] ?? null, revoked_by: by },
    });
  });
}

/** DELETE /api/oauth/grants/<id>: the account's own grant (another's answers 404). */
export async function revokeAccountGrant(deps: GrantDeps, accountId: string, id: string, client: ClientInfo): Promise<void> {
  const grant = await findGrant(deps.db, id, deps.clock());
  if (!grant || grant.accountId !== accountId) throw notFound(PROBLEMS.grantNotFound, 'No such authorized application.');
  await revoke(deps, grant, 'holder', client);
}

/** The /mcp URLs of a tunnel the actor may decide access to (its owner; an organization's admins and owners). */
async function ownedResources(deps: GrantDeps, actor: Actor, tunnelId: string): Promise<string[]> {
  const { tunnel } = await tunnelAccess(deps, actor, tunnelId, 'tunnels.access');
  return mcpUrlsOf(tunnel, tunnel.account.slug, deps.config.zone);
}

/** Whether the grant was given for this tunnel (by its id; grants from before that, by its URLs). */
const isGrantOf = (grant: GrantRow, tunnelId: string, resources: readonly string[]) =>
  grant.tunnelId === null ? resources.some((r) => r in grant.resources) : grant.tunnelId === tunnelId;

/** Who holds access to the tunnel (for its owner, or an organization's admins and owners). */
export async function listTunnelGrants(deps: GrantDeps, actor: Actor, tunnelId: string): Promise<GrantView[]> {
  return views(deps, await selectTunnelGrants(deps.db, tunnelId, await ownedResources(deps, actor, tunnelId), deps.clock()), true);
}

/** The owner (an organization's admin or owner) takes someone's access to the tunnel away. */
export async function revokeTunnelGrant(deps: GrantDeps, actor: Actor, tunnelId: string, grantId: string): Promise<void> {
  const client = actor.client;
  const resources = await ownedResources(deps, actor, tunnelId);
  const grant = await findGrant(deps.db, grantId, deps.clock());
  if (!grant || !isGrantOf(grant, tunnelId, resources)) throw notFound(PROBLEMS.grantNotFound, 'No such grant on this tunnel.');
  await revoke(deps, grant, 'tunnel owner', client);
}
