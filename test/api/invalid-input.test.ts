// An error about one input names it for a form to show beside its field: on REST the problem's
// `errors: [{pointer | parameter, detail}]` (RFC 9457's extension, in the OpenAPI document the
// contract check validates every answer against), on GraphQL extensions.field with the argument
// as the schema spells it. The message itself speaks of the thing in a person's words, never
// starting with the API's field name ("allowed_emails: …").
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fromIp, randomIp, signedIn, type SignedIn } from '../support/accounts.js';
import { gql } from '../support/graphql.js';
import type { Reply } from '../support/http.js';
import { assertProblem } from '../support/problem.js';
import { useServer } from '../support/server.js';
import { createTunnel, customDomain, uniqueSubdomain } from '../support/tunnels.js';

const s = useServer({ env: { WEBHOOK_ALLOW_PRIVATE: 'true', TRUST_PROXY: 'true' } });

async function account(): Promise<SignedIn & { headers: Record<string, string> }> {
  const headers = fromIp(randomIp());
  return { ...(await signedIn(s, { headers, verified: true })), headers };
}

/** A message that starts with an API name and a colon ("url: …", "expires_in_days: …"). */
const API_PREFIX = /^[a-z_]+: /;

/** The REST problem names exactly this input, with the problem's own detail. */
function assertNames(r: Reply, status: number, code: string, place: { pointer: string } | { parameter: string }): void {
  assertProblem(r, status, code);
  assert.deepEqual(r.json.errors, [{ ...place, detail: r.json.detail }], r.text);
  assert.doesNotMatch(r.json.detail, API_PREFIX);
}

/** The GraphQL error names this argument. */
function assertNamesArgument(r: Reply, code: string, field: string): string {
  const error = r.json.errors?.[0];
  assert.ok(error, r.text);
  assert.equal(error.extensions.code, code);
  assert.equal(error.extensions.field, field, r.text);
  assert.doesNotMatch(error.message, API_PREFIX);
  return error.message;
}

test('tunnels: the subdomain, the custom domain and allowed emails are named on REST and GraphQL', async () => {
  const a = await account();
  const post = (body: Record<string, unknown>) => s.request('/api/tunnels', { method: 'POST', bearer: a.token, headers: a.headers, body });
  assertNames(await post({ subdomain: '-bad-' }), 400, 'BAD_REQUEST', { pointer: '/subdomain' });
  assertNames(await post({ subdomain: uniqueSubdomain(), custom_domain: 'not a host' }), 400, 'BAD_REQUEST', { pointer: '/custom_domain' });
  const entries = await post({ subdomain: uniqueSubdomain(), allowed_emails: ['ada@example.com', 'not an address'] });
  assertNames(entries, 400, 'BAD_REQUEST', { pointer: '/allowed_emails' });
  assert.equal(entries.json.detail, '"not an address" is not an email address or @domain.');
  assertNames(await post({ subdomain: uniqueSubdomain(), access: 'private' }), 400, 'BAD_REQUEST', { pointer: '/access' });
  // What the REST layer itself checks is named the same way.
  assertNames(await post({}), 400, 'BAD_REQUEST', { pointer: '/subdomain' });
  assertNames(await post({ subdomain: 42 }), 400, 'BAD_REQUEST', { pointer: '/subdomain' });

  // A conflict names what is taken: the subdomain, or the custom domain.
  const taken = await createTunnel(s, a, { custom_domain: customDomain() });
  const again = await post({ subdomain: taken.subdomain });
  assertNames(again, 409, 'CONFLICT', { pointer: '/subdomain' });
  assert.equal(again.json.detail, 'You already have a tunnel with that subdomain.');
  const domain = await post({ subdomain: uniqueSubdomain(), custom_domain: taken.custom_domain });
  assertNames(domain, 409, 'CONFLICT', { pointer: '/custom_domain' });
  assert.equal(domain.json.detail, 'That custom domain is already in use.');

  const create = (variables: Record<string, unknown>) =>
    gql(s, 'mutation ($s: String!, $d: String, $e: [String!]) { createTunnel(subdomain: $s, customDomain: $d, allowedEmails: $e) { id } }', variables, { bearer: a.token, headers: a.headers });
  assertNamesArgument(await create({ s: '-bad-' }), 'BAD_REQUEST', 'subdomain');
  assertNamesArgument(await create({ s: uniqueSubdomain(), d: 'not a host' }), 'BAD_REQUEST', 'customDomain');
  assert.equal(assertNamesArgument(await create({ s: uniqueSubdomain(), e: ['@'] }), 'BAD_REQUEST', 'allowedEmails'), '"@" is not a domain (write @example.com).');
  assert.equal(assertNamesArgument(await create({ s: taken.subdomain }), 'CONFLICT', 'subdomain'), 'You already have a tunnel with that subdomain.');
  assert.equal(assertNamesArgument(await create({ s: uniqueSubdomain(), d: taken.custom_domain }), 'CONFLICT', 'customDomain'), 'That custom domain is already in use.');
});

test('tokens: the name, the scopes and the expiry are named, in words', async () => {
  const a = await account();
  const post = (body: Record<string, unknown>) => s.request('/api/tokens', { method: 'POST', bearer: a.token, headers: a.headers, body });
  const name = await post({ name: 'x'.repeat(101), scopes: ['tunnels:read'] });
  assertNames(name, 400, 'BAD_REQUEST', { pointer: '/name' });
  assert.equal(name.json.detail, 'Give the token a name of 1 to 100 characters.');
  assertNames(await post({ name: 'ci', scopes: [] }), 400, 'BAD_REQUEST', { pointer: '/scopes' });
  assertNames(await post({ name: 'ci', scopes: ['tunnels:read'], expires_in_days: 400 }), 400, 'BAD_REQUEST', { pointer: '/expires_in_days' });
  const expiry = await gql(s, 'mutation { createServiceToken(name: "ci", scopes: ["tunnels:read"], expiresInDays: 0) { token } }', {}, { bearer: a.token, headers: a.headers });
  assert.equal(assertNamesArgument(expiry, 'BAD_REQUEST', 'expiresInDays'), 'A token expires after a whole number of days from 1 to 366, or never.');
});

test('webhooks: the URL, the events and the description are named; a query parameter as `parameter`', async () => {
  const a = await account();
  const post = (body: Record<string, unknown>) => s.request('/api/webhooks', { method: 'POST', bearer: a.token, headers: a.headers, body });
  assertNames(await post({ url: 'x'.repeat(2001), events: ['tunnel.created'] }), 400, 'BAD_REQUEST', { pointer: '/url' });
  const events = await post({ url: 'http://127.0.0.1:9/hook', events: ['tunnel.exploded'] });
  assertNames(events, 400, 'BAD_REQUEST', { pointer: '/events' });
  assert.match(events.json.detail, /^Choose at least one event: tunnel\.created, /);
  assertNames(await post({ url: 'http://127.0.0.1:9/hook', events: ['tunnel.created'], description: 'd'.repeat(501) }), 400, 'BAD_REQUEST', { pointer: '/description' });
  const made = await post({ url: 'http://127.0.0.1:9/hook', events: ['tunnel.created'] });
  assert.equal(made.status, 201, made.text);
  assertNames(await s.request(`/api/webhooks/${made.json.id}/deliveries?limit=500`, { bearer: a.token, headers: a.headers }), 400, 'BAD_REQUEST', { parameter: 'limit' });
  const first = await gql(s, 'query ($id: ID!) { webhookDeliveries(webhookId: $id, first: 500) { id } }', { id: made.json.id }, { bearer: a.token, headers: a.headers });
  assertNamesArgument(first, 'BAD_REQUEST', 'first');
});

test('accounts: the slug, a new password and a new email are named', async () => {
  const a = await account();
  const slug = await s.request('/api/account/slug', { method: 'PATCH', bearer: a.token, headers: a.headers, body: { slug: 'admin' } });
  assertNames(slug, 400, 'BAD_REQUEST', { pointer: '/slug' });
  const password = await s.request('/auth/change-password', { method: 'POST', bearer: a.token, headers: a.headers, body: { current_password: a.password, new_password: 'short' } });
  assertNames(password, 400, 'BAD_REQUEST', { pointer: '/new_password' });
  assert.equal(password.json.detail, 'The new password must be 8 to 128 characters long.');
  const email = await gql(s, 'mutation ($p: String!) { changeEmail(currentPassword: $p, newEmail: "not an address") }', { p: a.password }, { bearer: a.token, headers: a.headers });
  assert.equal(assertNamesArgument(email, 'BAD_REQUEST', 'newEmail'), 'Enter a valid email address.');
});

test('an error about no one input carries no `errors` and no extensions.field', async () => {
  const a = await account();
  const missing = await s.request('/api/tunnels/00000000-0000-0000-0000-000000000000', { bearer: a.token, headers: a.headers });
  assertProblem(missing, 404, 'NOT_FOUND');
  assert.equal(missing.json.errors, undefined);
  const r = await gql(s, 'mutation { deleteTunnel(id: "00000000-0000-0000-0000-000000000000") }', {}, { bearer: a.token, headers: a.headers });
  assert.equal(r.json.errors[0].extensions.code, 'NOT_FOUND');
  assert.equal(r.json.errors[0].extensions.field, undefined);
});
