// The service-token reach table names only what the schema has: a renamed type or field would
// otherwise silently fall out of a scope (refused, never widened, but a broken CLI all the same).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isObjectType, parse } from 'graphql';
import { schema } from '../../../src/adapters/graphql/schema.js';
import { REACH, firstUnreachable } from '../../../src/adapters/graphql/token-scopes.js';
import { TOKEN_SCOPES } from '../../../src/domain/tokens/scopes.js';

test('every coordinate of the reach table exists in the schema, under known scopes', () => {
  for (const [coordinate, scopes] of REACH) {
    const [typeName = '', field = ''] = coordinate.split('.');
    const type = schema.getType(typeName);
    assert.ok(type && isObjectType(type), `${coordinate}: no object type ${typeName}`);
    if (field !== '*') assert.ok(type.getFields()[field], `${coordinate}: no field ${field}`);
    for (const s of scopes) assert.ok((TOKEN_SCOPES as readonly string[]).includes(s), `${coordinate}: unknown scope ${s}`);
  }
});

test('a token reaches a field only under one of the scopes the table names for it', () => {
  const doc = parse('{ me { email } }');
  assert.equal(firstUnreachable(schema, doc, ['account:read']), null);
  assert.equal(firstUnreachable(schema, doc, ['tunnels:read']), 'Account.email');
  assert.equal(firstUnreachable(schema, parse('mutation { deleteTunnel(id: "x") }'), ['tunnels:read']), 'Mutation.deleteTunnel');
  assert.equal(firstUnreachable(schema, parse('{ __schema { types { name } } }'), ['account:read', 'tunnels:read', 'tunnels:write']), 'Query.__schema');
  assert.equal(firstUnreachable(schema, parse('{ me { __typename id } }'), ['tunnels:read']), null);
});
