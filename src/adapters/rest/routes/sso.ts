// SSO paths of API.md section 4 that map onto GraphQL (confirm-link, unlink); the redirect
// endpoints (start, callback) are plain HTTP in src/adapters/api/routes/sso.ts.
import { graphql } from '../../documents/graphql.js';
import { route, type RestRoute } from '../route.js';
import { AuthPayload } from '../schemas.js';
import { AuthPayloadFields, authPayloadJson } from './accounts.js';

export const ssoRoutes: RestRoute[] = [
  route({
    method: 'POST',
    url: '/auth/oauth/confirm-link',
    summary: 'Link a provider identity to the password account it matched, proving the password.',
    public: true,
    setsCookie: true,
    errors: { 400: 'Bad or expired pending-link token.', 401: 'Wrong password.', 409: 'The identity or provider was linked meanwhile.', 429: 'Too many attempts.' },
    response: AuthPayload,
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
    summary: 'Disconnect a sign-in provider.',
    errors: { 400: 'It is the last sign-in method: set a password first.', 404: 'Not linked.' },
    document: graphql('mutation ($provider: String!) { unlinkProvider(provider: $provider) }'),
    params: { provider: 'provider' },
    status: 204,
  }),
];
