// Passkey paths of API.md section 8, each mapped onto its GraphQL operation.
import { graphql, type ResultOf } from '../../documents/graphql.js';
import { route, signedIn, type RestRoute } from '../route.js';
import { AuthPayloadFields, authPayloadJson } from './accounts.js';

const PasskeyFields = graphql('fragment PasskeyFields on Passkey { id name createdAt lastUsedAt backupEligible backedUp }');

export const passkeyJson = (p: ResultOf<typeof PasskeyFields>) => ({
  id: p.id,
  name: p.name,
  created_at: p.createdAt,
  last_used_at: p.lastUsedAt,
  backup_eligible: p.backupEligible,
  backed_up: p.backedUp,
});

export const passkeyRoutes: RestRoute[] = [
  route({
    method: 'POST',
    url: '/api/account/passkeys/options',
    document: graphql('mutation { passkeyRegistrationOptions }'),
    status: 200,
    respond: (d) => d.passkeyRegistrationOptions,
  }),
  route({
    method: 'POST',
    url: '/api/account/passkeys',
    document: graphql(
      'mutation ($response: JSONObject!, $name: String) { addPasskey(response: $response, name: $name) { ...PasskeyFields } }',
      [PasskeyFields],
    ),
    body: { response: 'response', name: 'name' },
    status: 201,
    respond: (d) => passkeyJson(d.addPasskey),
  }),
  route({
    method: 'GET',
    url: '/api/account/passkeys',
    document: graphql('query { me { passkeys { ...PasskeyFields } } }', [PasskeyFields]),
    status: 200,
    respond: (d) => ({ passkeys: signedIn(d.me).passkeys.map(passkeyJson) }),
  }),
  route({
    method: 'PATCH',
    url: '/api/account/passkeys/:id',
    document: graphql('mutation ($id: ID!, $name: String!) { renamePasskey(id: $id, name: $name) { ...PasskeyFields } }', [PasskeyFields]),
    params: { id: 'id' },
    body: { name: 'name' },
    status: 200,
    respond: (d) => passkeyJson(d.renamePasskey),
  }),
  route({
    method: 'DELETE',
    url: '/api/account/passkeys/:id',
    document: graphql('mutation ($id: ID!) { deletePasskey(id: $id) }'),
    params: { id: 'id' },
    status: 204,
  }),
  route({
    method: 'POST',
    url: '/auth/passkey/options',
    document: graphql('mutation { passkeyLoginOptions { challengeId options } }'),
    status: 200,
    respond: (d) => ({ challenge_id: d.passkeyLoginOptions.challengeId, options: d.passkeyLoginOptions.options }),
  }),
  route({
    method: 'POST',
    url: '/auth/passkey/login',
    document: graphql(
      'mutation ($challengeId: String!, $response: JSONObject!) { passkeyLogin(challengeId: $challengeId, response: $response) { ...AuthPayloadFields } }',
      [AuthPayloadFields],
    ),
    body: { challenge_id: 'challengeId', response: 'response' },
    status: 200,
    respond: (d) => authPayloadJson(d.passkeyLogin),
  }),
];
