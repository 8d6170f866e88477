// Tunnel paths of API.md section 4: the owner's tunnels, same operations as GraphQL.
import { graphql, type ResultOf } from '../../documents/graphql.js';
import { route, signedIn, type RestRoute } from '../route.js';
import { Tunnel, TunnelList } from '../schemas.js';

export const TunnelFields = graphql(`
  fragment TunnelFields on Tunnel { id subdomain host url customDomain discoverable pinnedTools access allowedEmails createdAt owner { type slug } }
`);

export const tunnelJson = (t: ResultOf<typeof TunnelFields>) => ({
  id: t.id,
  subdomain: t.subdomain,
  host: t.host,
  url: t.url,
  custom_domain: t.customDomain,
  discoverable: t.discoverable,
  pinned_tools: t.pinnedTools,
  access: t.access,
  allowed_emails: t.allowedEmails,
  created_at: t.createdAt,
  owner: { type: t.owner.type === 'org' ? ('org' as const) : ('account' as const), slug: t.owner.slug },
});

export const tunnelRoutes: RestRoute[] = [
  route({
    method: 'POST',
    url: '/api/tunnels',
    summary: 'Create a tunnel.',
    errors: { 400: 'A rule is broken (subdomain, custom domain, access, allowed emails).', 409: 'The subdomain or custom domain is taken.' },
    response: Tunnel,
    document: graphql(
      `mutation ($subdomain: String!, $customDomain: String, $access: String, $allowedEmails: [String!]) {
        createTunnel(subdomain: $subdomain, customDomain: $customDomain, access: $access, allowedEmails: $allowedEmails) { ...TunnelFields } }`,
      [TunnelFields],
    ),
    body: { subdomain: 'subdomain', custom_domain: 'customDomain', access: 'access', allowed_emails: 'allowedEmails' },
    status: 201,
    respond: (d) => tunnelJson(d.createTunnel),
  }),
  route({
    method: 'GET',
    url: '/api/tunnels',
    summary: "The account's tunnels.",
    operationId: 'listTunnels',
    response: TunnelList,
    document: graphql('query { me { tunnels { ...TunnelFields } } }', [TunnelFields]),
    status: 200,
    respond: (d) => ({ tunnels: signedIn(d.me).tunnels.map(tunnelJson) }),
  }),
  route({
    method: 'GET',
    url: '/api/tunnels/:id',
    summary: 'One tunnel.',
    operationId: 'getTunnel',
    errors: { 404: "Unknown (also for another account's tunnel)." },
    response: Tunnel,
    document: graphql('query ($id: ID!) { tunnel(id: $id) { ...TunnelFields } }', [TunnelFields]),
    params: { id: 'id' },
    status: 200,
    respond: (d) => tunnelJson(d.tunnel),
  }),
  route({
    method: 'PATCH',
    url: '/api/tunnels/:id',
    summary: 'Change a tunnel (discoverable, custom domain, subdomain, access, allowed emails).',
    errors: { 400: 'A rule is broken, or a value of the wrong type.', 404: 'Unknown tunnel.', 409: 'The subdomain or custom domain is taken.' },
    response: Tunnel,
    document: graphql(
      `mutation ($id: ID!, $discoverable: Boolean, $customDomain: String, $subdomain: String, $access: String, $allowedEmails: [String!]) {
        updateTunnel(id: $id, discoverable: $discoverable, customDomain: $customDomain, subdomain: $subdomain, access: $access, allowedEmails: $allowedEmails) {
          ...TunnelFields } }`,
      [TunnelFields],
    ),
    body: { discoverable: 'discoverable', custom_domain: 'customDomain', subdomain: 'subdomain', access: 'access', allowed_emails: 'allowedEmails' },
    params: { id: 'id' },
    status: 200,
    respond: (d) => tunnelJson(d.updateTunnel),
  }),
  route({
    method: 'DELETE',
    url: '/api/tunnels/:id',
    summary: 'Delete a tunnel.',
    errors: { 404: 'Unknown tunnel.' },
    document: graphql('mutation ($id: ID!) { deleteTunnel(id: $id) }'),
    params: { id: 'id' },
    status: 204,
  }),
];
