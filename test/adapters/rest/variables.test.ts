// A REST request's inputs are checked against the GraphQL types of its operation's variables
// (src/adapters/rest/variables.ts): the answers a client gets for a missing or mistyped input.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FastifyRequest } from 'fastify';
import { schema } from '../../../src/adapters/graphql/schema.js';
import type { RestRoute } from '../../../src/adapters/rest/route.js';
import { restRoutes } from '../../../src/adapters/rest/table.js';
import { routeVariables, variablesOf } from '../../../src/adapters/rest/variables.js';
import type { AppError } from '../../../src/domain/errors.js';

const routeOf = (method: string, url: string): RestRoute => restRoutes.find((r) => r.method === method && r.url === url)!;

/** The variables, or the refusal as [status, code, detail, field]. */
function check(method: string, url: string, req: { body?: unknown; params?: Record<string, string>; query?: Record<string, unknown> }): unknown {
  const route = routeOf(method, url);
  try {
    return variablesOf(route, routeVariables(schema, route), req as FastifyRequest);
  } catch (err) {
    const e = err as AppError;
    return [e.status, e.code, e.message, e.extra.field];
  }
}

test('a body field is checked against its variable type, and named as the client sent it', () => {
  const create = (body: unknown) => check('POST', '/api/tokens', { body });
  assert.deepEqual(create({ name: 'ci', scopes: ['tunnels:read'], expires_in_days: 30 }), { name: 'ci', scopes: ['tunnels:read'], expiresInDays: 30 });
  assert.deepEqual(create({ name: 'ci', scopes: ['tunnels:read'] }), { name: 'ci', scopes: ['tunnels:read'] });
  assert.deepEqual(create({ scopes: ['tunnels:read'] }), [400, 'BAD_REQUEST', '"name" is required.', 'name']);
  assert.deepEqual(create({ name: null, scopes: ['tunnels:read'] }), [400, 'BAD_REQUEST', '"name" is required.', 'name']);
  assert.deepEqual(create({ name: 5, scopes: ['tunnels:read'] }), [400, 'BAD_REQUEST', '"name" must be a string.', 'name']);
  // graphql-js would take a lone string as a list of one: REST wants the list.
  assert.deepEqual(create({ name: 'ci', scopes: 'tunnels:read' }), [400, 'BAD_REQUEST', '"scopes" must be a list of strings.', 'scopes']);
  assert.deepEqual(create({ name: 'ci', scopes: ['tunnels:read', 1] }), [400, 'BAD_REQUEST', '"scopes" must be a list of strings.', 'scopes']);
  assert.deepEqual(create({ name: 'ci', scopes: ['tunnels:read'], expires_in_days: 1.5 }), [400, 'BAD_REQUEST', '"expires_in_days" must be an integer.', 'expiresInDays']);
  assert.deepEqual(create({ name: 'ci', scopes: ['tunnels:read'], expires_in_days: 2 ** 31 }), [400, 'BAD_REQUEST', '"expires_in_days" must be an integer.', 'expiresInDays']);
  assert.deepEqual(create(['ci']), [400, 'BAD_REQUEST', 'The request body must be a JSON object.', undefined]);
});

test('an optional field takes null ("clear it"), a boolean only a boolean', () => {
  const update = (body: unknown) => check('PATCH', '/api/tunnels/:id', { body, params: { id: 't1' } });
  assert.deepEqual(update({ custom_domain: null }), { customDomain: null, id: 't1' });
  assert.deepEqual(update({ discoverable: 'yes' }), [400, 'BAD_REQUEST', '"discoverable" must be a boolean.', 'discoverable']);
  assert.deepEqual(update({ allowed_emails: [] }), { allowedEmails: [], id: 't1' });
  assert.deepEqual(check('PATCH', '/api/tunnels/:id', { body: {}, params: { id: 'a\u0000b' } }), [404, 'NOT_FOUND', 'Not found.', undefined]);
});

test('a query parameter is text: an Int takes plain decimal digits, once', () => {
  const list = (query: Record<string, unknown>) => check('GET', '/api/account/activity', { query });
  assert.deepEqual(list({ limit: '20' }), { first: 20 });
  assert.deepEqual(list({ limit: '' }), {});
  assert.deepEqual(list({ limit: '1.5' }), [400, 'BAD_REQUEST', '"limit" must be an integer.', 'first']);
  assert.deepEqual(list({ limit: '1234567890' }), [400, 'BAD_REQUEST', '"limit" must be an integer.', 'first']);
  assert.deepEqual(list({ limit: ['1', '2'] }), [400, 'BAD_REQUEST', '"limit" must be given once.', undefined]);
});

test('every route variable has a REST form, printed as its JSON Schema', () => {
  for (const route of restRoutes) {
    for (const [name, v] of routeVariables(schema, route)) {
      assert.ok(['string', 'boolean', 'integer', 'object', 'array'].includes(v.jsonSchema.type as string), `${route.method} ${route.url} $${name}`);
      assert.match(v.mustBe, /^an? /);
    }
  }
});
