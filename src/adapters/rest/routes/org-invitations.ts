// Invitation paths of API.md section 18: an organization's invitations (admins and owners) and
// the invitee's answer, accept or decline, by the link's token; the same operations as GraphQL.
import { graphql, type ResultOf } from '../../documents/graphql.js';
import { route, type RestRoute } from '../route.js';
import { Organization, OrgInvitation, OrgInvitationList } from '../schemas.js';

const InvitationFields = graphql(`
  fragment InvitationFields on OrgInvitation { id email role expiresAt }
`);

const JoinedOrgFields = graphql(`
  fragment JoinedOrgFields on Organization { id slug name createdAt role }
`);

const invitationJson = (i: ResultOf<typeof InvitationFields>) => ({ id: i.id, email: i.email, role: i.role, expires_at: i.expiresAt });

const NOT_MEMBER = 'Unknown organization, or the caller is not a member.';
const BAD_TOKEN = 'The token is unknown, used, revoked or expired.';

export const orgInvitationRoutes: RestRoute[] = [
  route({
    method: 'POST',
    url: '/api/orgs/:slug/invitations',
    summary: 'Invite an address with a role (admins and owners; owners for an owner); it gets a link that works once for 7 days.',
    errors: {
      400: 'Not an email address, or not a role.',
      403: 'The role does not allow inviting (or inviting an owner).',
      404: NOT_MEMBER,
      409: 'The address is already a member.',
      429: 'The organization has 50 pending invitations, or sent 20 this hour.',
    },
    response: OrgInvitation,
    document: graphql('mutation ($slug: String!, $email: String!, $role: String!) { createInvitation(slug: $slug, email: $email, role: $role) { ...InvitationFields } }', [InvitationFields]),
    params: { slug: 'slug' },
    body: { email: 'email', role: 'role' },
    status: 201,
    respond: (d) => invitationJson(d.createInvitation),
  }),
  route({
    method: 'GET',
    url: '/api/orgs/:slug/invitations',
    summary: "The organization's pending invitations, newest first (admins and owners).",
    operationId: 'listOrganizationInvitations',
    errors: { 404: NOT_MEMBER },
    response: OrgInvitationList,
    document: graphql('query ($slug: String!) { organization(slug: $slug) { invitations(first: 50) { edges { node { ...InvitationFields } } } } }', [InvitationFields]),
    params: { slug: 'slug' },
    status: 200,
    respond: (d) => ({ invitations: d.organization.invitations.edges.map((e) => invitationJson(e.node)) }),
  }),
  route({
    method: 'DELETE',
    url: '/api/orgs/:slug/invitations/:id',
    summary: 'Revoke a pending invitation (admins and owners): its link stops working.',
    errors: { 404: 'Unknown organization, or no pending invitation with this id.' },
    document: graphql('mutation ($slug: String!, $id: ID!) { revokeInvitation(slug: $slug, id: $id) }'),
    params: { slug: 'slug', id: 'id' },
    status: 204,
  }),
  route({
    method: 'POST',
    url: '/api/invitations/accept',
    summary: "Accept an invitation (signed in, with the invitation's address verified): join its organization.",
    errors: { 400: BAD_TOKEN, 403: 'The account’s address is not the invited one, or is not verified (the reason says which).', 409: 'Already a member.' },
    response: Organization,
    document: graphql('mutation ($token: String!) { acceptInvitation(token: $token) { ...JoinedOrgFields } }', [JoinedOrgFields]),
    body: { token: 'token' },
    status: 200,
    respond: (d) => {
      const o = d.acceptInvitation;
      return { id: o.id, slug: o.slug, name: o.name, created_at: o.createdAt, role: o.role };
    },
  }),
  route({
    method: 'POST',
    url: '/api/invitations/decline',
    summary: "Decline an invitation (signed in as the invited address's account): it is revoked.",
    errors: { 400: BAD_TOKEN, 403: 'The account’s address is not the invited one.' },
    document: graphql('mutation ($token: String!) { declineInvitation(token: $token) }'),
    body: { token: 'token' },
    status: 204,
  }),
];
