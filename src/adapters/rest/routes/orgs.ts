// Organization paths of API.md section 18: the organizations, their members, tunnels and audit
// log, and a tunnel's transfer; the same operations as GraphQL. A non-member gets 404 for
// everything under /api/orgs/<slug>; a member without the role 403.
import { graphql, type ResultOf } from '../../documents/graphql.js';
import { route, signedIn, type RestRoute } from '../route.js';
import { AuditPage, OrgMember, OrgMemberList, Organization, OrganizationList, Tunnel, TunnelList } from '../schemas.js';
import { tunnelJson, TunnelFields } from './tunnels.js';

const OrgFields = graphql(`
  fragment OrgFields on Organization { id slug name createdAt role }
`);

const MemberFields = graphql(`
  fragment MemberFields on OrganizationMember { accountId email slug role joinedAt }
`);

const orgJson = (o: ResultOf<typeof OrgFields>) => ({ id: o.id, slug: o.slug, name: o.name, created_at: o.createdAt, role: o.role });
const memberJson = (m: ResultOf<typeof MemberFields>) => ({ account_id: m.accountId, email: m.email, slug: m.slug, role: m.role, joined_at: m.joinedAt });

const NOT_MEMBER = 'Unknown organization, or the caller is not a member.';

export const orgRoutes: RestRoute[] = [
  route({
    method: 'POST',
    url: '/api/orgs',
    summary: 'Create an organization (the caller is its owner).',
    errors: { 400: 'A slug or name rule is broken.', 403: 'The address is not verified.', 409: 'The slug is taken or held, or the caller owns 10 organizations.' },
    response: Organization,
    document: graphql('mutation ($slug: String!, $name: String!) { createOrganization(slug: $slug, name: $name) { ...OrgFields } }', [OrgFields]),
    body: { slug: 'slug', name: 'name' },
    status: 201,
    respond: (d) => orgJson(d.createOrganization),
  }),
  route({
    method: 'GET',
    url: '/api/orgs',
    summary: "The caller's organizations, with its role in each.",
    operationId: 'listOrganizations',
    response: OrganizationList,
    document: graphql('query { me { organizations { ...OrgFields } } }', [OrgFields]),
    status: 200,
    respond: (d) => ({ orgs: signedIn(d.me).organizations.map(orgJson) }),
  }),
  route({
    method: 'GET',
    url: '/api/orgs/:slug',
    summary: 'One organization.',
    operationId: 'getOrganization',
    errors: { 404: NOT_MEMBER },
    response: Organization,
    document: graphql('query ($slug: String!) { organization(slug: $slug) { ...OrgFields } }', [OrgFields]),
    params: { slug: 'slug' },
    status: 200,
    respond: (d) => orgJson(d.organization),
  }),
  route({
    method: 'PATCH',
    url: '/api/orgs/:slug',
    summary: 'Rename an organization (name: admins and owners; slug: owners, every tunnel host moves).',
    errors: { 400: 'A slug or name rule is broken.', 404: NOT_MEMBER, 409: 'The slug is taken or held.' },
    response: Organization,
    document: graphql('mutation ($slug: String!, $name: String, $newSlug: String) { updateOrganization(slug: $slug, name: $name, newSlug: $newSlug) { ...OrgFields } }', [OrgFields]),
    params: { slug: 'slug' },
    body: { name: 'name', slug: 'newSlug' },
    status: 200,
    respond: (d) => orgJson(d.updateOrganization),
  }),
  route({
    method: 'DELETE',
    url: '/api/orgs/:slug',
    summary: 'Delete an organization and everything it owns (owners, recently authenticated, `{slug}` typed again).',
    errors: { 400: 'The typed slug does not match.', 404: NOT_MEMBER },
    document: graphql('mutation ($slug: String!, $confirmSlug: String) { deleteOrganization(slug: $slug, confirmSlug: $confirmSlug) }'),
    params: { slug: 'slug' },
    body: { slug: 'confirmSlug' },
    status: 204,
  }),
  route({
    method: 'GET',
    url: '/api/orgs/:slug/members',
    summary: "The organization's members, oldest first.",
    operationId: 'listOrganizationMembers',
    errors: { 404: NOT_MEMBER },
    response: OrgMemberList,
    document: graphql('query ($slug: String!) { organization(slug: $slug) { members(first: 1000) { edges { node { ...MemberFields } } } } }', [MemberFields]),
    params: { slug: 'slug' },
    status: 200,
    respond: (d) => ({ members: d.organization.members.edges.map((e) => memberJson(e.node)) }),
  }),
  route({
    method: 'PATCH',
    url: '/api/orgs/:slug/members/:accountId',
    summary: "Change a member's role (admins and owners; owners for an owner).",
    errors: { 400: 'Not a role (owner, admin, member).', 404: 'Unknown organization or member.', 409: 'The last owner cannot be demoted.' },
    response: OrgMember,
    document: graphql('mutation ($slug: String!, $accountId: ID!, $role: String!) { changeMemberRole(slug: $slug, accountId: $accountId, role: $role) { ...MemberFields } }', [MemberFields]),
    params: { slug: 'slug', accountId: 'accountId' },
    body: { role: 'role' },
    status: 200,
    respond: (d) => memberJson(d.changeMemberRole),
  }),
  route({
    method: 'DELETE',
    url: '/api/orgs/:slug/members/:accountId',
    summary: 'Remove a member (admins and owners), or leave (your own account id).',
    errors: { 404: 'Unknown organization or member.', 409: 'The last owner cannot leave or be removed.' },
    document: graphql('mutation ($slug: String!, $accountId: ID!) { removeMember(slug: $slug, accountId: $accountId) }'),
    params: { slug: 'slug', accountId: 'accountId' },
    status: 204,
  }),
  route({
    method: 'POST',
    url: '/api/orgs/:slug/tunnels',
    summary: 'Create a tunnel owned by the organization.',
    errors: { 400: 'A rule is broken (subdomain, custom domain, access, allowed emails).', 404: NOT_MEMBER, 409: 'The subdomain or custom domain is taken.' },
    response: Tunnel,
    document: graphql(
      `mutation ($slug: String!, $subdomain: String!, $customDomain: String, $access: String, $allowedEmails: [String!]) {
        createOrganizationTunnel(slug: $slug, subdomain: $subdomain, customDomain: $customDomain, access: $access, allowedEmails: $allowedEmails) { ...TunnelFields } }`,
      [TunnelFields],
    ),
    params: { slug: 'slug' },
    body: { subdomain: 'subdomain', custom_domain: 'customDomain', access: 'access', allowed_emails: 'allowedEmails' },
    status: 201,
    respond: (d) => tunnelJson(d.createOrganizationTunnel),
  }),
  route({
    method: 'GET',
    url: '/api/orgs/:slug/tunnels',
    summary: "The organization's tunnels, oldest first.",
    operationId: 'listOrganizationTunnels',
    errors: { 404: NOT_MEMBER },
    response: TunnelList,
    document: graphql('query ($slug: String!) { organization(slug: $slug) { tunnels(first: 1000) { edges { node { ...TunnelFields } } } } }', [TunnelFields]),
    params: { slug: 'slug' },
    status: 200,
    respond: (d) => ({ tunnels: d.organization.tunnels.edges.map((e) => tunnelJson(e.node)) }),
  }),
  route({
    method: 'POST',
    url: '/api/tunnels/:id/transfer',
    summary: 'Move a tunnel to an organization (`to`: its slug) or to yourself (`"me"`); its host changes, its OAuth grants are revoked.',
    errors: { 400: '`to` is missing.', 404: 'Unknown tunnel or organization.', 409: 'The new owner has a tunnel with that subdomain, or its most tunnels.' },
    response: Tunnel,
    document: graphql('mutation ($id: ID!, $to: String!) { transferTunnel(id: $id, to: $to) { ...TunnelFields } }', [TunnelFields]),
    params: { id: 'id' },
    body: { to: 'to' },
    status: 200,
    respond: (d) => tunnelJson(d.transferTunnel),
  }),
  route({
    method: 'GET',
    url: '/api/orgs/:slug/audit',
    summary: "The organization's audit log, newest first (a year; admins and owners).",
    operationId: 'listOrganizationAudit',
    errors: { 400: 'A bad limit (1..100) or cursor.', 404: NOT_MEMBER },
    response: AuditPage,
    document: graphql(`
      query ($slug: String!, $first: Int, $after: String) {
        organization(slug: $slug) {
          audit(first: $first, after: $after) {
            edges { node { id type actor { accountId email tokenId } target at ip } }
            pageInfo { hasNextPage endCursor }
          }
        }
      }
    `),
    params: { slug: 'slug' },
    query: { limit: 'first', before: 'after' },
    status: 200,
    respond: (d) => {
      const audit = d.organization.audit;
      return {
        events: audit.edges.map(({ node }) => ({
          id: node.id,
          type: node.type,
          actor: node.actor === null ? null : node.actor.tokenId != null ? { token_id: node.actor.tokenId } : { account_id: node.actor.accountId ?? '', email: node.actor.email ?? '' },
          target: node.target,
          at: node.at,
          ip: node.ip,
        })),
        next_cursor: audit.pageInfo.hasNextPage ? (audit.pageInfo.endCursor ?? null) : null,
      };
    },
  }),
];
