// Service-token paths of API.md section 12: the same operations as GraphQL.
import { graphql, type ResultOf } from '../../documents/graphql.js';
import { route, signedIn, type RestRoute } from '../route.js';
import { CreatedServiceToken, ServiceTokenList } from '../schemas.js';

export const ServiceTokenFields = graphql(`
  fragment ServiceTokenFields on ServiceToken { id name scopes createdAt expiresAt lastUsedAt lastUsedIp }
`);

export const tokenJson = (t: ResultOf<typeof ServiceTokenFields>) => ({
  id: t.id,
  name: t.name,
  scopes: t.scopes,
  created_at: t.createdAt,
  expires_at: t.expiresAt,
  last_used_at: t.lastUsedAt,
  last_used_ip: t.lastUsedIp,
});

/** A new token as POST /api/tokens answers it: the secret, once, and no address of a use yet. */
export const createdTokenJson = (c: { token: string; serviceToken: ResultOf<typeof ServiceTokenFields> }) => {
  const { last_used_ip: _ip, ...token } = tokenJson(c.serviceToken);
  return { ...token, token: c.token };
};

export const tokenRoutes: RestRoute[] = [
  route({
    method: 'POST',
    url: '/api/tokens',
    summary: 'Create a service token for the CLI or CI; the token is shown once.',
    errors: { 400: 'A rule is broken (name, scopes, expiry).', 403: 'The address is not verified, or recent authentication is needed (REAUTH_REQUIRED).', 409: 'Past 50 live tokens.' },
    response: CreatedServiceToken,
    document: graphql(
      `mutation ($name: String!, $scopes: [String!]!, $expiresInDays: Int) {
        createServiceToken(name: $name, scopes: $scopes, expiresInDays: $expiresInDays) { token serviceToken { ...ServiceTokenFields } } }`,
      [ServiceTokenFields],
    ),
    body: { name: 'name', scopes: 'scopes', expires_in_days: 'expiresInDays' },
    status: 201,
    respond: (d) => createdTokenJson(d.createServiceToken),
  }),
  route({
    method: 'GET',
    url: '/api/tokens',
    summary: "The account's service tokens, newest first, expired ones included.",
    operationId: 'listServiceTokens',
    response: ServiceTokenList,
    document: graphql('query { me { serviceTokens { ...ServiceTokenFields } } }', [ServiceTokenFields]),
    status: 200,
    respond: (d) => ({ tokens: signedIn(d.me).serviceTokens.map(tokenJson) }),
  }),
  route({
    method: 'DELETE',
    url: '/api/tokens/:id',
    summary: 'Revoke a service token.',
    errors: { 404: 'Unknown token.' },
    document: graphql('mutation ($id: ID!) { revokeServiceToken(id: $id) }'),
    params: { id: 'id' },
    status: 204,
  }),
];
