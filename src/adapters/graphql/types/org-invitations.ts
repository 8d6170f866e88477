// Invitations on the graph (API.md section 18): `Organization.invitations` (pending, admins and
// owners), `invitation(token)` for the accept page, and the mutations of the REST paths. Sessions
// only: nothing here declares tokenScopes, and `invitations` opts out of the Organization type's
// default, so no token reaches any of it.
import { arrayConnection } from '../connections.js';
import {
  acceptInvitation,
  createInvitation,
  declineInvitation,
  listInvitations,
  MAX_PENDING,
  previewInvitation,
  revokeInvitation,
  type Invitation,
  type InvitationPreview,
} from '../../../domain/orgs/invitations.js';
import { builder } from '../builder.js';
import { TOKEN_REACH } from '../field-policy.js';
import { actorOf } from '../context.js';
import { OrganizationRef } from './organization.js';

export const OrgInvitationRef = builder.objectRef<Invitation>('OrgInvitation').implement({
  description: 'An invitation to join an organization, pending until accepted, declined, revoked or expired (7 days).',
  fields: (t) => ({
    id: t.exposeID('id'),
    email: t.exposeString('email', { description: 'The invited address, as typed.' }),
    role: t.exposeString('role', { description: 'owner, admin or member: the role on joining.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    expiresAt: t.expose('expiresAt', { type: 'DateTime' }),
  }),
});

const InvitationOrgRef = builder.objectRef<InvitationPreview['org']>('InvitationOrganization').implement({
  description: 'The organization an invitation is to (what its invitee may see before joining).',
  fields: (t) => ({
    slug: t.exposeString('slug'),
    name: t.exposeString('name'),
  }),
});

const InvitationPreviewRef = builder.objectRef<InvitationPreview>('InvitationPreview').implement({
  description: 'A pending invitation as its link shows it.',
  fields: (t) => ({
    org: t.field({ type: InvitationOrgRef, resolve: (p) => p.org }),
    email: t.exposeString('email', { description: 'The invited address: only the account whose verified address it is may accept.' }),
    role: t.exposeString('role'),
    expiresAt: t.expose('expiresAt', { type: 'DateTime' }),
  }),
});

builder.objectField(OrganizationRef, 'invitations', (t) =>
  t.connection(
    {
      type: OrgInvitationRef,
      tokenScopes: TOKEN_REACH.none,
      description: `Pending invitations, newest first (at most ${MAX_PENDING}). Admins and owners.`,
      resolve: async (org, args, ctx) => arrayConnection(await listInvitations(ctx.deps, actorOf(ctx), org.slug), args, MAX_PENDING),
    },
    { name: 'OrgInvitationConnection' },
    { name: 'OrgInvitationEdge' },
  ),
);

builder.queryField('invitation', (t) =>
  t.field({
    type: InvitationPreviewRef,
    authScopes: { signedIn: true },
    description: 'The pending invitation a link’s token names (BAD_REQUEST when unknown, used, revoked or expired).',
    args: { token: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => previewInvitation(ctx.deps, args.token),
  }),
);

builder.mutationFields((t) => ({
  createInvitation: t.field({
    type: OrgInvitationRef,
    authScopes: { signedIn: true },
    description: 'Invites an address with a role (admins and owners; owners for an owner) and emails it the link (7 days, once). At most 50 pending and 20 sent an hour per organization.',
    args: { slug: t.arg.string({ required: true }), email: t.arg.string({ required: true }), role: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => createInvitation(ctx.deps, actorOf(ctx), args.slug, { email: args.email, role: args.role }),
  }),
  revokeInvitation: t.boolean({
    authScopes: { signedIn: true },
    description: 'Revokes a pending invitation: its link stops working.',
    args: { slug: t.arg.string({ required: true }), id: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => {
      await revokeInvitation(ctx.deps, actorOf(ctx), args.slug, String(args.id));
      return true;
    },
  }),
  acceptInvitation: t.field({
    type: OrganizationRef,
    authScopes: { signedIn: true },
    description: 'Joins the organization with the invitation’s role: only an account whose verified address is the invited one (FORBIDDEN otherwise, with the reason).',
    args: { token: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => acceptInvitation(ctx.deps, actorOf(ctx), args.token),
  }),
  declineInvitation: t.boolean({
    authScopes: { signedIn: true },
    description: 'Declines the invitation (the invited address’s account): it is revoked.',
    args: { token: t.arg.string({ required: true }) },
    resolve: async (_root, args, ctx) => {
      await declineInvitation(ctx.deps, actorOf(ctx), args.token);
      return true;
    },
  }),
}));
