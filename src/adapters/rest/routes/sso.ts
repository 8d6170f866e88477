// SSO paths of API.md section 4 that map onto GraphQL (confirm-link, unlink); the redirect
// endpoints (start, callback) are plain HTTP in src/sso/http.ts.
import type { RestRoute } from '../route.js';
import { authPayloadJson } from './accounts.js';

export const ssoRoutes: RestRoute[] = [
  {
    method: 'POST',
    url: '/auth/oauth/confirm-link',
    document:
      'mutation ($token: String!, $password: String!) { confirmLink(token: $token, password: $password) { token emailVerified expiresAt } }',
    body: { token: 'token', password: 'password' },
    status: 200,
    respond: (d) => authPayloadJson(d.confirmLink as Parameters<typeof authPayloadJson>[0]),
  },
  {
    method: 'DELETE',
    url: '/api/account/sso/:provider',
    document: 'mutation ($provider: String!) { unlinkProvider(provider: $provider) }',
    params: { provider: 'provider' },
    status: 204,
  },
];
