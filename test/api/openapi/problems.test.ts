// Problem types dereference to their documentation: GET BASE_URL/problems/<slug> answers the
// catalog entry, GET /problems the whole catalog; every problem answer's `type` is such a URI
// (assertProblem checks it on every answer of the API tests) and GraphQL errors carry it too.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PROBLEM_LIST, PROBLEMS } from '../../../src/domain/problems.js';
import { gql, gqlCode } from '../../support/graphql.js';
import { assertProblem } from '../../support/problem.js';
import { useServer } from '../../support/server.js';

const s = useServer();

test('a problem type URI answers its catalog entry; /problems lists them all', async () => {
  const taken = await s.request('/auth/signup', { method: 'POST', body: { email: 'x', password: 'short' } });
  assertProblem(taken, 400, 'BAD_REQUEST');
  const type = new URL(taken.json.type as string);
  const entry = await s.request(type.pathname);
  assert.equal(entry.status, 200);
  assert.equal(entry.json.type, taken.json.type);
  assert.equal(entry.json.code, 'BAD_REQUEST');
  assert.equal(entry.json.status, 400);
  assert.equal(typeof entry.json.description, 'string');

  const slugTaken = await s.request(`/problems/${PROBLEMS.slugTaken.slug}`);
  assert.deepEqual(
    { ...slugTaken.json, type: undefined },
    { type: undefined, slug: 'slug-taken', area: 'accounts', code: 'CONFLICT', status: 409, title: PROBLEMS.slugTaken.title, description: PROBLEMS.slugTaken.description },
  );
  assert.match(slugTaken.json.type as string, /^https?:\/\/[^/]+\/problems\/slug-taken$/);
  const grant = await s.request(`/problems/${PROBLEMS.oauthInvalidGrant.slug}`);
  assert.equal(grant.json.oauth_error, 'invalid_grant');

  const all = await s.request('/problems');
  assert.equal(all.status, 200);
  assert.deepEqual(
    (all.json.problems as { slug: string }[]).map((p) => p.slug),
    PROBLEM_LIST.map((p) => p.slug),
  );
  assertProblem(await s.request('/problems/about-blank'), 404, 'NOT_FOUND');
});

test('GraphQL errors carry the same type as REST answers, in extensions.type', async () => {
  const r = await gql(s, 'mutation { signup(email: "not-an-email", password: "long enough password") { id } }');
  const code = gqlCode(r);
  assert.equal(code, 'BAD_REQUEST');
  assert.match(r.json.errors[0].extensions.type as string, /\/problems\/invalid-email$/);
  const invalid = await gql(s, '{ nope }');
  assert.equal(gqlCode(invalid), 'BAD_REQUEST');
  assert.match(invalid.json.errors[0].extensions.type as string, /\/problems\/graphql-invalid$/);
});
