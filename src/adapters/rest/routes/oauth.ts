// The consent page's paths of API.md section 13: the same operations as GraphQL.
import { graphql } from '../../documents/graphql.js';
import { route, type RestRoute } from '../route.js';

export const oauthRoutes: RestRoute[] = [
  route({
    method: 'GET',
    url: '/api/oauth/requests/:id',
    document: graphql('query ($id: ID!) { oauthRequest(id: $id) { clientId clientName redirectHost resource tunnel { id host } scopes allowed } }'),
    params: { id: 'id' },
    status: 200,
    respond: (d) => ({
      client_id: d.oauthRequest.clientId,
      client_name: d.oauthRequest.clientName,
      redirect_host: d.oauthRequest.redirectHost,
      resource: d.oauthRequest.resource,
      tunnel: d.oauthRequest.tunnel,
      scopes: d.oauthRequest.scopes,
      allowed: d.oauthRequest.allowed,
    }),
  }),
  route({
    method: 'POST',
    url: '/api/oauth/requests/:id/approve',
    document: graphql('mutation ($id: ID!) { approveOAuthRequest(id: $id) }'),
    params: { id: 'id' },
    status: 200,
    respond: (d) => ({ redirect_to: d.approveOAuthRequest }),
  }),
  route({
    method: 'POST',
    url: '/api/oauth/requests/:id/deny',
    document: graphql('mutation ($id: ID!) { denyOAuthRequest(id: $id) }'),
    params: { id: 'id' },
    status: 200,
    respond: (d) => ({ redirect_to: d.denyOAuthRequest }),
  }),
];
