// An organization's service tokens (API.md section 18): the section 12 paths under
// /api/orgs/<slug>/tokens, for its admins and owners; the same operations as GraphQL.
import { graphql, type ResultOf } from '../../documents/graphql.js';
import { route, type RestRoute } from '../route.js';
import { CreatedServiceToken, OrgServiceTokenList } from '../schemas.js';
import { createdTokenJson, ServiceTokenFields, tokenJson } from './tokens.js';

const OrgTokenFields = graphql(
  `
  fragment OrgTokenFields on ServiceToken { ...ServiceTokenFields createdBy }
`,
  [ServiceTokenFields],
);

const orgTokenJson = (t: ResultOf<typeof OrgTokenFields>) => ({ ...tokenJson(t), created_by: t.createdBy });

const NOT_MEMBER = 'Unknown organization, or the caller is not a member.';

export const orgTokenRoutes: RestRoute[] = [
  route({
    method: 'POST',
    url: '/api/orgs/:slug/tokens',
    summary: "Create a token of the organization (admins and owners): it reaches the organization's tunnels only; shown once.",
    errors: {
      400: 'A rule is broken (name, scopes: tunnels:read and tunnels:write only, expiry).',
      403: 'The role does not allow it, the address is not verified, or recent authentication is needed (REAUTH_REQUIRED).',
      404: NOT_MEMBER,
      409: 'Past 50 live tokens.',
    },
    response: CreatedServiceToken,
    document: graphql(
      `mutation ($slug: String!, $name: String!, $scopes: [String!]!, $expiresInDays: Int) {
        createOrganizationToken(slug: $slug, name: $name, scopes: $scopes, expiresInDays: $expiresInDays) { token serviceToken { ...ServiceTokenFields } } }`,
      [ServiceTokenFields],
    ),
    params: { slug: 'slug' },
    body: { name: 'name', scopes: 'scopes', expires_in_days: 'expiresInDays' },
    status: 201,
    respond: (d) => createdTokenJson(d.createOrganizationToken),
  }),
  route({
    method: 'GET',
    url: '/api/orgs/:slug/tokens',
    summary: "The organization's tokens, newest first, expired ones included, with who made each (admins and owners).",
    operationId: 'listOrganizationTokens',
    errors: { 403: 'The role does not allow it.', 404: NOT_MEMBER },
    response: OrgServiceTokenList,
    document: graphql('query ($slug: String!) { organization(slug: $slug) { tokens(first: 1000) { edges { node { ...OrgTokenFields } } } } }', [OrgTokenFields]),
    params: { slug: 'slug' },
    status: 200,
    respond: (d) => ({ tokens: d.organization.tokens.edges.map((e) => orgTokenJson(e.node)) }),
  }),
  route({
    method: 'DELETE',
    url: '/api/orgs/:slug/tokens/:id',
    summary: 'Revoke a token of the organization (admins and owners).',
    errors: { 403: 'The role does not allow it.', 404: 'Unknown organization or token.' },
    document: graphql('mutation ($slug: String!, $id: ID!) { revokeOrganizationToken(slug: $slug, id: $id) }'),
    params: { slug: 'slug', id: 'id' },
    status: 204,
  }),
];
