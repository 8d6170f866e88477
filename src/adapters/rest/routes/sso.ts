// SSO paths of API.md section 4 that map onto GraphQL (confirm-link, unlink); the redirect
// endpoints (start, callback) are plain HTTP in src/adapters/http/routes/oauth.ts.
import { graphql } from '../../documents/graphql.js';
import { route, type RestRoute } from '../route.js';
import { AuthPayloadFields, authPayloadJson } from './accounts.js';

export const ssoRoutes: RestRoute[] = [
  route({
    method: 'POST',
    url: '/auth/oauth/confirm-link',
    document: graphql(
      'mutation ($token: String!, $password: String!) { confirmLink(token: $token, password: $password) { ...AuthPayloadFields } }',
      [AuthPayloadFields],
    ),
    body: { token: 'token', password: 'password' },
    status: 200,
    respond: (d) => authPayloadJson(d.confirmLink),
  }),
  route({
    method: 'DELETE',
    url: '/api/account/sso/:provider',
    document: graphql('mutation ($provider: String!) { unlinkProvider(provider: $provider) }'),
    params: { provider: 'provider' },
    status: 204,
  }),
];
