// Teams on the graph (API.md section 18): `me.organizations`, `organization(slug)` with its
// members, tunnels and audit log (connections), and the mutations of the REST paths. Who may do
// what is decided in the domain (membership/access.ts); a non-member gets NOT_FOUND, a member without
// the role FORBIDDEN.
import { arrayConnection } from '../connections.js';
import { createOrg, deleteOrg, getOrg, listOrgs, updateOrg, type OrgView } from '../../../domain/orgs/orgs.js';
import { changeRole, listMembers, MAX_MEMBERS, removeMember, type MemberRow } from '../../../domain/orgs/members.js';
import { listAudit, type AuditEvent } from '../../../domain/membership/audit.js';
import { orgAccess, orgAccessKnown } from '../../../domain/membership/access.js';
import { createTunnel, getTunnel, listOrgTunnels, MAX_ORG_TUNNELS } from '../../../domain/tunnels/tunnels.js';
import { transferTunnel } from '../../../domain/tunnels/transfer.js';
import { badRequest, PROBLEMS } from '../../../domain/errors.js';
import { tunnelHostSuffix } from '../../../domain/tunnels/names.js';
import { builder } from '../builder.js';
import { TOKEN_REACH } from '../field-policy.js';
import { actorOf } from '../context.js';
import { AccountRef } from './account.js';
import { TunnelRef } from './tunnel.js';

export const MemberRef = builder.objectRef<MemberRow>('OrganizationMember').implement({
  description: 'A member of an organization.',
  fields: (t) => ({
    accountId: t.exposeID('accountId'),
    email: t.exposeString('email'),
    slug: t.exposeString('slug'),
    role: t.exposeString('role', { description: 'owner, admin or member.' }),
    joinedAt: t.expose('joinedAt', { type: 'DateTime' }),
  }),
});

const AuditActorRef = builder.objectRef<NonNullable<AuditEvent['actor']>>('AuditActor').implement({
  description: 'Who acted: a member (accountId and email), or the organization’s token (tokenId).',
  fields: (t) => ({
    accountId: t.string({ nullable: true, resolve: (a) => ('accountId' in a ? a.accountId : null) }),
    email: t.string({ nullable: true, resolve: (a) => ('email' in a ? a.email : null) }),
    tokenId: t.string({ nullable: true, resolve: (a) => ('tokenId' in a ? a.tokenId : null) }),
  }),
});

export const AuditEventRef = builder.objectRef<AuditEvent>('AuditEvent').implement({
  description: 'One entry of an organization’s audit log.',
  fields: (t) => ({
    id: t.exposeID('id'),
    type: t.exposeString('type'),
    actor: t.field({ type: AuditActorRef, nullable: true, resolve: (e) => e.actor }),
    target: t.field({ type: 'JSONObject', resolve: (e) => e.target }),
    at: t.expose('at', { type: 'DateTime' }),
    ip: t.exposeString('ip', { description: 'Masked: 203.0.113.x or 2001:db8:1::x' }),
  }),
});

export const OrganizationRef = builder.objectRef<OrgView>('Organization').implement({
  description: 'An organization: it owns tunnels, tokens and webhooks; its members act on them by role.',
  tokenScopes: TOKEN_REACH.tunnelsRead,
  fields: (t) => ({
    id: t.exposeID('id'),
    slug: t.exposeString('slug', { description: 'Shares the accounts’ namespace; its tunnels’ hosts are <subdomain>--<slug>.ZONE.' }),
    name: t.exposeString('name'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    role: t.exposeString('role', { nullable: true, description: 'The caller’s role: owner, admin or member (null for the organization’s own token).' }),
    tunnelHostSuffix: t.string({
      description: "What follows a new tunnel's subdomain in its host: --<org slug>.ZONE.",
      resolve: (org, _args, ctx) => tunnelHostSuffix(org.slug, ctx.deps.config.zone),
    }),
    members: t.connection(
      {
        type: MemberRef,
        tokenScopes: TOKEN_REACH.none,
        description: 'Oldest first.',
        resolve: async (org, args, ctx) => arrayConnection(await listMembers(ctx.deps, actorOf(ctx), org.slug), args, MAX_MEMBERS),
      },
      { name: 'OrganizationMemberConnection' },
      { name: 'OrganizationMemberEdge' },
    ),
    tunnels: t.connection(
      {
        type: TunnelRef,
        description: 'Oldest first (at most 1,000).',
        resolve: async (org, args, ctx) => {
          const scope = orgAccessKnown(org, actorOf(ctx), 'tunnels.read');
          return arrayConnection(await listOrgTunnels(ctx.deps, scope.org), args, MAX_ORG_TUNNELS);
        },
      },
      { name: 'OrganizationTunnelConnection', tokenScopes: TOKEN_REACH.tunnelsRead },
      { name: 'OrganizationTunnelEdge', tokenScopes: TOKEN_REACH.tunnelsRead },
    ),
    audit: t.connection(
      {
        type: AuditEventRef,
        tokenScopes: TOKEN_REACH.none,
        description: 'Newest first, kept a year; page with `first` (1–100, default 50) and `after` (an event id). Admins and owners.',
        resolve: async (org, args, ctx) => {
          if (args.last != null || args.before != null) throw badRequest(PROBLEMS.invalidCursor, 'Page forward with first and after.');
          const scope = await orgAccess(ctx.deps, actorOf(ctx), org.slug, 'audit.read');
          const page = await listAudit(ctx.deps, scope.org.id, { limit: args.first ?? undefined, before: args.after ?? undefined });
          return {
            edges: page.events.map((node) => ({ node, cursor: node.id })),
            pageInfo: { hasNextPage: page.hasMore, hasPreviousPage: Boolean(args.after), startCursor: page.events[0]?.id ?? null, endCursor: page.events.at(-1)?.id ?? null },
          };
        },
      },
      { name: 'AuditEventConnection' },
      { name: 'AuditEventEdge' },
    ),
  }),
});

builder.objectField(AccountRef, 'organizations', (t) =>
  t.field({
    type: [OrganizationRef],
    tokenScopes: TOKEN_REACH.tunnelsRead,
    description: 'The organizations the account is a member of, with its role in each.',
    resolve: (account, _args, ctx) => listOrgs(ctx.deps, account.id),
  }),
);

builder.queryField('organization', (t) =>
  t.field({
    type: OrganizationRef,
    authScopes: { signedIn: true },
    tokenScopes: TOKEN_REACH.tunnelsRead,
    description: 'An organization the caller is a member of (NOT_FOUND otherwise).',
    args: { slug: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => getOrg(ctx.deps, actorOf(ctx), args.slug),
  }),
);

builder.mutationFields((t) => ({
  createOrganization: t.field({
    type: OrganizationRef,
    authScopes: { signedIn: true },
    description: 'Creates an organization owned by the caller (verified address; at most 10 owned).',
    args: { slug: t.arg.string({ required: true }), name: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => createOrg(ctx.deps, actorOf(ctx), args),
  }),
  updateOrganization: t.field({
    type: OrganizationRef,
    authScopes: { signedIn: true },
    description: 'Changes the name (admins, owners) and/or the slug (owners: every tunnel host moves).',
    args: { slug: t.arg.string({ required: true }), name: t.arg.string(), newSlug: t.arg.string() },
    resolve: (_root, args, ctx) => updateOrg(ctx.deps, actorOf(ctx), args.slug, { name: args.name, slug: args.newSlug }),
  }),
  deleteOrganization: t.boolean({
    authScopes: { signedIn: true },
    description: 'Deletes the organization and everything it owns (owners, recently authenticated, the slug typed again as `confirmSlug`).',
    args: { slug: t.arg.string({ required: true }), confirmSlug: t.arg.string() },
    resolve: async (_root, args, ctx) => {
      await deleteOrg(ctx.deps, actorOf(ctx), args.slug, args.confirmSlug);
      return true;
    },
  }),
  changeMemberRole: t.field({
    type: MemberRef,
    authScopes: { signedIn: true },
    args: { slug: t.arg.string({ required: true }), accountId: t.arg.id({ required: true }), role: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => changeRole(ctx.deps, actorOf(ctx), args.slug, String(args.accountId), args.role),
  }),
  removeMember: t.boolean({
    authScopes: { signedIn: true },
    description: 'Removes a member (admins, owners), or the caller leaves (their own account id).',
    args: { slug: t.arg.string({ required: true }), accountId: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => {
      await removeMember(ctx.deps, actorOf(ctx), args.slug, String(args.accountId));
      return true;
    },
  }),
  createOrganizationTunnel: t.field({
    type: TunnelRef,
    authScopes: { signedIn: true },
    tokenScopes: TOKEN_REACH.tunnelsWrite,
    description: 'Creates a tunnel owned by the organization (same rules as createTunnel; subdomains unique per organization).',
    args: { slug: t.arg.string({ required: true }), subdomain: t.arg.string({ required: true }), customDomain: t.arg.string(), access: t.arg.string(), allowedEmails: t.arg.stringList() },
    resolve: async (_root, args, ctx) => {
      const actor = actorOf(ctx);
      const scope = await orgAccess(ctx.deps, actor, args.slug, 'tunnels.create');
      if ((args.access != null && args.access !== 'public') || args.allowedEmails != null) await orgAccess(ctx.deps, actor, args.slug, 'tunnels.access');
      const id = await createTunnel(ctx.deps, scope.org.id, args, scope);
      return getTunnel(ctx.deps, actor, id);
    },
  }),
  transferTunnel: t.field({
    type: TunnelRef,
    authScopes: { signedIn: true },
    description: 'Moves a tunnel to an organization (`to`: its slug) or to the caller ("me"); its host changes and its OAuth grants are revoked.',
    args: { id: t.arg.id({ required: true }), to: t.arg.string({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const actor = actorOf(ctx);
      await transferTunnel(ctx.deps, actor, String(args.id), args.to);
      return getTunnel(ctx.deps, actor, String(args.id));
    },
  }),
}));
