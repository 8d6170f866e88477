// Who may act on a tunnel (API.md sections 4 and 18): its owner (an account, or an organization's
// own token) always may; a member of the owning organization as its role allows (decided by
// membership/access.ts, the one place for it); anyone else gets 404, as for a missing tunnel.
import type { DomainDeps } from '../context.js';
import { noSuchTunnel } from '../errors.js';
import { refuse, viewerOf, type Actor, type OrgScope } from '../membership/access.js';
import { decide, type OrgAction } from '../membership/roles.js';
import { findOrgById } from '../membership/store.js';
import { findTunnelWithOwner, type OwnedTunnel } from './store.js';

/** A tunnel the actor may act on, with its owner's organization (null for a personal tunnel). */
export interface TunnelScope {
  tunnel: OwnedTunnel & { accountId: string };
  org: OrgScope | null;
}

/**
 * The tunnel `id` when the actor may do `action` to it: its owner (an account, or an
 * organization's token) always may; a member of the owning organization by role; anyone else
 * gets 404 as for a missing tunnel.
 */
export async function tunnelAccess(deps: Pick<DomainDeps, 'db'>, actor: Actor, id: string, action: OrgAction): Promise<TunnelScope> {
  const tunnel = await findTunnelWithOwner(deps.db, id);
  if (!tunnel) throw noSuchTunnel();
  if (tunnel.ownerKind !== 'org') {
    if (tunnel.accountId !== actor.viewer.accountId) throw noSuchTunnel();
    return { tunnel, org: null };
  }
  const org = await findOrgById(deps.db, tunnel.accountId);
  if (!org) throw noSuchTunnel();
  const viewer = await viewerOf(deps, org, actor.viewer);
  if (viewer === null) throw noSuchTunnel();
  if (decide(viewer, action) !== 'allowed') refuse(action, viewer);
  return { tunnel, org: { org, role: viewer.kind === 'member' ? viewer.role : null, actor } };
}

