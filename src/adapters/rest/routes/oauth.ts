// The consent page's paths of API.md section 13: the same operations as GraphQL.
import { graphql } from '../../documents/graphql.js';
import { route, signedIn, type RestRoute } from '../route.js';
import { OAuthGrantList, OAuthRequest, RedirectTo } from '../schemas.js';

export const oauthRoutes: RestRoute[] = [
  route({
    method: 'GET',
    url: '/api/oauth/grants',
    summary: 'Authorized applications: the OAuth grants the account gave to MCP clients.',
    operationId: 'listOAuthGrants',
    response: OAuthGrantList,
    document: graphql('query { me { oauthGrants { id clientId clientName resource tunnel { id host } scopes createdAt lastUsedAt } } }'),
    status: 200,
    respond: (d) => ({
      grants: signedIn(d.me).oauthGrants.map((g) => ({
        id: g.id,
        client_id: g.clientId,
        client_name: g.clientName,
        resource: g.resource,
        tunnel: g.tunnel,
        scopes: g.scopes,
        created_at: g.createdAt,
        last_used_at: g.lastUsedAt,
      })),
    }),
  }),
  route({
    method: 'DELETE',
    url: '/api/oauth/grants/:id',
    summary: 'Revoke an OAuth grant (its tokens stop working).',
    errors: { 404: 'Unknown grant.' },
    document: graphql('mutation ($id: ID!) { revokeOAuthGrant(id: $id) }'),
    params: { id: 'id' },
    status: 204,
  }),
  route({
    method: 'GET',
    url: '/api/oauth/requests/:id',
    summary: 'What a pending authorization request asks for (the consent page).',
    errors: { 404: 'Unknown, used or expired request, or one opened by another session.' },
    response: OAuthRequest,
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
    summary: 'Allow the request: the answer is where to send the browser, with the code.',
    errors: { 403: 'The user is not allowed on that tunnel.', 404: 'Unknown, used or expired request.' },
    response: RedirectTo,
    document: graphql('mutation ($id: ID!) { approveOAuthRequest(id: $id) }'),
    params: { id: 'id' },
    status: 200,
    respond: (d) => ({ redirect_to: d.approveOAuthRequest }),
  }),
  route({
    method: 'POST',
    url: '/api/oauth/requests/:id/deny',
    summary: 'Deny the request: the answer is where to send the browser, with access_denied.',
    errors: { 404: 'Unknown, used or expired request.' },
    response: RedirectTo,
    document: graphql('mutation ($id: ID!) { denyOAuthRequest(id: $id) }'),
    params: { id: 'id' },
    status: 200,
    respond: (d) => ({ redirect_to: d.denyOAuthRequest }),
  }),
];
