// Passkey paths of API.md section 8, each mapped onto its GraphQL operation.
import { graphql, type ResultOf } from '../../documents/graphql.js';
import { route, signedIn, type RestRoute } from '../route.js';
import { AuthPayload, Passkey, WebAuthnOptions } from '../schemas.js';
import { z } from 'zod';
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
    summary: 'Registration options for a new passkey.',
    errors: { 403: 'The address is not verified, or recent authentication is needed (REAUTH_REQUIRED).', 409: 'The account holds 20 passkeys already.' },
    response: WebAuthnOptions,
    document: graphql('mutation { passkeyRegistrationOptions }'),
    status: 200,
    respond: (d) => d.passkeyRegistrationOptions,
  }),
  route({
    method: 'POST',
    url: '/api/account/passkeys',
    summary: "Add a passkey from the browser's registration response.",
    errors: { 400: 'Failed verification.', 403: 'The address is not verified, or recent authentication is needed (REAUTH_REQUIRED).', 409: 'The account holds 20 passkeys already.' },
    response: Passkey,
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
    summary: "The account's passkeys.",
    operationId: 'listPasskeys',
    response: z.strictObject({ passkeys: z.array(Passkey) }),
    document: graphql('query { me { passkeys { ...PasskeyFields } } }', [PasskeyFields]),
    status: 200,
    respond: (d) => ({ passkeys: signedIn(d.me).passkeys.map(passkeyJson) }),
  }),
  route({
    method: 'PATCH',
    url: '/api/account/passkeys/:id',
    summary: 'Rename a passkey.',
    errors: { 400: 'The name breaks a rule.', 404: 'Unknown passkey.' },
    response: Passkey,
    document: graphql('mutation ($id: ID!, $name: String!) { renamePasskey(id: $id, name: $name) { ...PasskeyFields } }', [PasskeyFields]),
    params: { id: 'id' },
    body: { name: 'name' },
    status: 200,
    respond: (d) => passkeyJson(d.renamePasskey),
  }),
  route({
    method: 'DELETE',
    url: '/api/account/passkeys/:id',
    summary: 'Remove a passkey.',
    errors: { 400: 'It is the last sign-in method.', 404: 'Unknown passkey.' },
    document: graphql('mutation ($id: ID!) { deletePasskey(id: $id) }'),
    params: { id: 'id' },
    status: 204,
  }),
  route({
    method: 'POST',
    url: '/auth/passkey/options',
    summary: 'A challenge for signing in with a passkey (discoverable credentials).',
    public: true,
    errors: { 429: 'Too many requests from this network.' },
    response: z.strictObject({ challenge_id: z.string(), options: WebAuthnOptions }),
    document: graphql('mutation { passkeyLoginOptions { challengeId options } }'),
    status: 200,
    respond: (d) => ({ challenge_id: d.passkeyLoginOptions.challengeId, options: d.passkeyLoginOptions.options }),
  }),
  route({
    method: 'POST',
    url: '/auth/passkey/login',
    summary: 'Sign in with a passkey assertion; satisfies two-step sign-in.',
    public: true,
    setsCookie: true,
    errors: { 400: 'Unknown or used challenge_id.', 401: 'Unknown credential or failed verification.', 429: 'Too many attempts.' },
    response: AuthPayload,
    document: graphql(
      'mutation ($challengeId: String!, $response: JSONObject!) { passkeyLogin(challengeId: $challengeId, response: $response) { ...AuthPayloadFields } }',
      [AuthPayloadFields],
    ),
    body: { challenge_id: 'challengeId', response: 'response' },
    status: 200,
    respond: (d) => authPayloadJson(d.passkeyLogin),
  }),
];
