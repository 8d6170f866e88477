// Who may do what to an organization (API.md section 18), in one table. Every surface (GraphQL,
// REST through it, the token scopes, introspection) asks `decide` through access.ts; nothing
// else compares roles.
//
// Three kinds of viewer reach an organization:
// - a member's session: everything its role allows;
// - a member's personal service token: what its role allows, within the token's scopes (tunnels
//   only: a token never manages people, tokens or webhooks);
// - the organization's own token (a `tsk_` token whose account is the organization): its
//   tunnels, within its scopes.
// The folder imports no other area of the domain (tokens/ records in the audit log through it),
// so the two tunnel scopes are spelt here as tokens/scopes.ts spells them.

/** The service-token scopes that reach an organization (tokens/scopes.ts). */
export const ORG_TOKEN_SCOPES = ['tunnels:read', 'tunnels:write'] as const;
type OrgTokenScope = (typeof ORG_TOKEN_SCOPES)[number];

export const ORG_ROLES = ['owner', 'admin', 'member'] as const;
export type OrgRole = (typeof ORG_ROLES)[number];
export const isOrgRole = (v: unknown): v is OrgRole => typeof v === 'string' && (ORG_ROLES as readonly string[]).includes(v);

export const ORG_ACTIONS = [
  /** See the organization (its slug, name, the caller's role). */
  'org.read',
  /** Change its display name. */
  'org.rename',
  /** Change its slug (every tunnel host moves). */
  'org.slug',
  'org.delete',
  'members.read',
  /** Change the role of, or remove, a member who is not an owner; invite admins and members. */
  'members.manage',
  /** Make, demote or remove owners; invite owners. */
  'owners.manage',
  'invitations.manage',
  'tunnels.read',
  /** Be granted OAuth access to an `oauth` tunnel's /mcp (a verified address needed besides). */
  'tunnels.connect',
  'tunnels.create',
  /** Change a tunnel's discoverable flag, subdomain or custom domain; delete it. */
  'tunnels.write',
  /** Change who may reach a tunnel: its access and allowed emails. */
  'tunnels.access',
  'tokens.manage',
  'webhooks.manage',
  'audit.read',
] as const;
export type OrgAction = (typeof ORG_ACTIONS)[number];

/** The actions each role allows. An owner may do everything. */
const ROLE_ACTIONS: Record<OrgRole, ReadonlySet<OrgAction>> = {
  owner: new Set(ORG_ACTIONS),
  admin: new Set<OrgAction>([
    'org.read', 'org.rename', 'members.read', 'members.manage', 'invitations.manage',
    'tunnels.read', 'tunnels.connect', 'tunnels.create', 'tunnels.write', 'tunnels.access', 'tokens.manage', 'webhooks.manage', 'audit.read',
  ]),
  member: new Set<OrgAction>(['org.read', 'members.read', 'tunnels.read', 'tunnels.connect', 'tunnels.create', 'tunnels.write']),
};

/** The token scopes that reach each action (any one suffices); an action absent here no token reaches. */
const TOKEN_ACTIONS: Partial<Record<OrgAction, readonly OrgTokenScope[]>> = {
  'org.read': ['tunnels:read', 'tunnels:write'],
  'tunnels.read': ['tunnels:read', 'tunnels:write'],
  'tunnels.create': ['tunnels:write'],
  'tunnels.write': ['tunnels:write'],
  'tunnels.access': ['tunnels:write'],
};

/** What is asking: a member (session or personal token) with a role, or the organization's own token. */
export type OrgViewer = { kind: 'member'; role: OrgRole; scopes: readonly string[] | null } | { kind: 'org-token'; scopes: readonly string[] };

/** The decision: allowed, or why not (`forbidden`: a member without the role or scope). */
export function decide(viewer: OrgViewer, action: OrgAction): 'allowed' | 'forbidden' {
  if (viewer.kind === 'member' && !ROLE_ACTIONS[viewer.role].has(action)) return 'forbidden';
  if (viewer.scopes === null) return 'allowed';
  const reach = TOKEN_ACTIONS[action] ?? [];
  return reach.some((s) => viewer.scopes?.includes(s)) ? 'allowed' : 'forbidden';
}

/** Whether `role` allows `action` (the console's hints; the decision is `decide`'s). */
export const roleAllows = (role: OrgRole, action: OrgAction): boolean => ROLE_ACTIONS[role].has(action);
