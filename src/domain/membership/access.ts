// The one place that decides what a viewer may do to an organization (API.md section 18), and,
// through tunnels/tunnel-access.ts, to an organization's tunnel. GraphQL (and REST through it),
// the token scopes and introspection all come here:
// - a non-member learns nothing (404, as for a missing organization or tunnel);
// - a member without the role, or a token without the scope, gets 403;
// - membership is read from the database on every decision, so a removal takes effect at once on
//   every instance (no cache holds it; the session check itself reads no organization).
import type { ClientInfo, DomainDeps, Viewer } from '../context.js';
import { forbidden, notFound, PROBLEMS } from '../errors.js';
import { decide, ORG_ROLES, roleAllows, type OrgAction, type OrgRole, type OrgViewer } from './roles.js';
import { findOrgById, findOrgBySlug, readPersonEmail, readRole, selectMemberAddresses, type OrgRow } from './store.js';
import { maskIp } from '../network.js';
import type { DbHandle } from '../store.js';

/** Who acts, and from where (the audit log records both). */
export interface Actor {
  viewer: Viewer;
  client: ClientInfo;
}

/** An organization the actor may act on, as whom. */
export interface OrgScope {
  org: OrgRow;
  /** The actor's role; null for the organization's own token. */
  role: OrgRole | null;
  actor: Actor;
}

const noSuchOrg = () => notFound(PROBLEMS.orgNotFound, 'No such organization.');

/** The id of the service token behind a viewer (`token:<id>` sessions), or null for a session. */
const tokenIdOf = (viewer: Viewer): string | null => (viewer.sessionId.startsWith('token:') ? viewer.sessionId.slice('token:'.length) : null);

export async function viewerOf(deps: Pick<DomainDeps, 'db'>, org: OrgRow, viewer: Viewer): Promise<OrgViewer | null> {
  if (viewer.accountId === org.id) return viewer.scopes === null ? null : { kind: 'org-token', scopes: viewer.scopes };
  const role = await readRole(deps.db, org.id, viewer.accountId);
  return role === null ? null : { kind: 'member', role, scopes: viewer.scopes };
}

export function refuse(action: OrgAction, viewer: OrgViewer): never {
  const byToken = viewer.scopes !== null;
  throw forbidden(
    PROBLEMS.orgRoleRequired,
    byToken && viewer.kind === 'member' && decide({ ...viewer, scopes: null }, action) === 'allowed'
      ? 'This token’s scopes do not allow this action.'
      : byToken && viewer.kind === 'org-token'
        ? 'An organization token reaches only the organization’s tunnels, within its scopes.'
        : 'Your role in this organization does not allow this action.',
  );
}

/** The organization named `slug` when the actor may do `action` to it; 404 for a non-member, 403 without the role. */
export async function orgAccess(deps: Pick<DomainDeps, 'db'>, actor: Actor, slug: string, action: OrgAction): Promise<OrgScope> {
  const org = await findOrgBySlug(deps.db, slug);
  if (!org) throw noSuchOrg();
  const viewer = await viewerOf(deps, org, actor.viewer);
  if (viewer === null) throw noSuchOrg();
  if (decide(viewer, action) !== 'allowed') refuse(action, viewer);
  return { org, role: viewer.kind === 'member' ? viewer.role : null, actor };
}

/**
 * The organization whose own token the viewer is (paths that name no organization, such as
 * POST /api/tunnels, act for it then); null for a person's session or token. A session costs no query.
 */
export async function tokenOrg(deps: Pick<DomainDeps, 'db'>, viewer: Viewer): Promise<OrgRow | null> {
  return viewer.scopes === null ? null : findOrgById(deps.db, viewer.accountId);
}

/**
 * Who hears of what befalls the organization's `action` (a notice about its webhook endpoint goes
 * to the members who manage them): an organization has no address of its own.
 */
export function membersAllowedTo(db: DbHandle, orgId: string, action: OrgAction): Promise<{ accountId: string; email: string }[]> {
  return selectMemberAddresses(db, orgId, ORG_ROLES.filter((r) => roleAllows(r, action)));
}

/**
 * The same decision for an organization read for this actor in this request (a GraphQL parent:
 * `organization(slug)` or `me.organizations` carry the actor's role), without reading it again.
 */
export function orgAccessKnown(org: OrgRow & { role: OrgRole | null }, actor: Actor, action: OrgAction): OrgScope {
  const viewer: OrgViewer =
    org.role === null ? { kind: 'org-token', scopes: actor.viewer.scopes ?? [] } : { kind: 'member', role: org.role, scopes: actor.viewer.scopes };
  if (decide(viewer, action) !== 'allowed') refuse(action, viewer);
  return { org: { id: org.id, slug: org.slug, name: org.name, createdAt: org.createdAt, tunnelsVersion: org.tunnelsVersion }, role: org.role, actor };
}

/** The audit log's actor: the member (id and address) or the organization's token. */
export async function auditActor(db: DbHandle, actor: Actor): Promise<{ actorId: string | null; actorEmail: string | null; actorTokenId: string | null; ip: string }> {
  const tokenId = tokenIdOf(actor.viewer);
  const ip = maskIp(actor.client.ip);
  const person = await readPersonEmail(db, actor.viewer.accountId);
  if (person === null) return { actorId: null, actorEmail: null, actorTokenId: tokenId, ip };
  return { actorId: actor.viewer.accountId, actorEmail: person.email, actorTokenId: null, ip };
}
