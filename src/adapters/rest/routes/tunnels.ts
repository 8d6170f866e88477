// Tunnel paths of API.md section 4: the owner's tunnels, same operations as GraphQL.
import { signedIn, type RestRoute } from '../route.js';

interface TunnelData {
  id: string;
  subdomain: string;
  host: string;
  url: string;
  customDomain: string | null;
  discoverable: boolean;
  pinnedTools: string[];
  createdAt: string;
}

const TUNNEL_FIELDS = 'id subdomain host url customDomain discoverable pinnedTools createdAt';

export const tunnelJson = (t: TunnelData) => ({
  id: t.id,
  subdomain: t.subdomain,
  host: t.host,
  url: t.url,
  custom_domain: t.customDomain,
  discoverable: t.discoverable,
  pinned_tools: t.pinnedTools,
  created_at: t.createdAt,
});

export const tunnelRoutes: RestRoute[] = [
  {
    method: 'POST',
    url: '/api/tunnels',
    document: `mutation ($subdomain: String!, $customDomain: String) {
      createTunnel(subdomain: $subdomain, customDomain: $customDomain) { ${TUNNEL_FIELDS} } }`,
    body: { subdomain: 'subdomain', custom_domain: 'customDomain' },
    status: 201,
    respond: (d) => tunnelJson(d.createTunnel as TunnelData),
  },
  {
    method: 'GET',
    url: '/api/tunnels',
    document: `query { me { tunnels { ${TUNNEL_FIELDS} } } }`,
    status: 200,
    respond: (d) => ({ tunnels: signedIn(d.me as { tunnels: TunnelData[] } | null).tunnels.map(tunnelJson) }),
  },
  {
    method: 'GET',
    url: '/api/tunnels/:id',
    document: `query ($id: ID!) { tunnel(id: $id) { ${TUNNEL_FIELDS} } }`,
    params: { id: 'id' },
    status: 200,
    respond: (d) => tunnelJson(d.tunnel as TunnelData),
  },
  {
    method: 'PATCH',
    url: '/api/tunnels/:id',
    document: `mutation ($id: ID!, $discoverable: Boolean, $customDomain: String, $subdomain: String) {
      updateTunnel(id: $id, discoverable: $discoverable, customDomain: $customDomain, subdomain: $subdomain) {
        ${TUNNEL_FIELDS} } }`,
    body: { discoverable: 'discoverable', custom_domain: 'customDomain', subdomain: 'subdomain' },
    params: { id: 'id' },
    status: 200,
    respond: (d) => tunnelJson(d.updateTunnel as TunnelData),
  },
  {
    method: 'DELETE',
    url: '/api/tunnels/:id',
    document: 'mutation ($id: ID!) { deleteTunnel(id: $id) }',
    params: { id: 'id' },
    status: 204,
  },
];
