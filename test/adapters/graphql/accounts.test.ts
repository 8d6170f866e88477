// The GraphQL surface of the account area (API.md section 5): `me`, every account mutation end to
// end, the same error code as REST for the same input, and the depth limit.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { login, PASSWORD, signedIn, signup } from '../../support/accounts.js';
import { gql, gqlCode } from '../../support/graphql.js';
import { sessionCookie, type Reply } from '../../support/http.js';
import { assertProblem } from '../../support/problem.js';
import { uniqueEmail, useServer } from '../../support/server.js';

const s = useServer();

const M = {
  signup: 'mutation ($email: String!, $password: String!) { signup(email: $email, password: $password) { id email emailVerified slug } }',
  login: 'mutation ($email: String!, $password: String!) { login(email: $email, password: $password) { token emailVerified expiresAt } }',
  verifyEmail: 'mutation ($token: String!) { verifyEmail(token: $token) { emailVerified } }',
  resendVerification: 'mutation { resendVerification }',
  changeEmail: 'mutation ($p: String!, $e: String!) { changeEmail(currentPassword: $p, newEmail: $e) }',
  confirmEmailChange: 'mutation ($token: String!) { confirmEmailChange(token: $token) { email } }',
  changePassword: 'mutation ($p: String!, $n: String!) { changePassword(currentPassword: $p, newPassword: $n) }',
  forgotPassword: 'mutation ($email: String!) { forgotPassword(email: $email) }',
  resetPassword: 'mutation ($token: String!, $n: String!) { resetPassword(token: $token, newPassword: $n) }',
  renameSlug: 'mutation ($slug: String!) { renameSlug(slug: $slug) { slug } }',
  revokeSession: 'mutation ($id: ID!) { revokeSession(id: $id) }',
  logout: 'mutation { logout }',
  logoutAll: 'mutation { logoutAll }',
  deleteAccount: 'mutation ($email: String!, $password: String!) { deleteAccount(email: $email, password: $password) }',
};
const ME = '{ me { id email emailVerified slug plan linkedProviders { provider email linkedAt } lastLogin { at ip } sessions { id userAgent ip createdAt lastSeenAt current } } }';

function ok(r: Reply): Record<string, unknown> {
  assert.equal(r.json?.errors, undefined, r.text);
  return r.json.data;
}

test('me is null when signed out and the full profile when signed in', async () => {
  assert.deepEqual(ok(await gql(s, ME)), { me: null });
  const a = await signedIn(s);
  const me = ok(await gql(s, ME, {}, { bearer: a.token })).me as Record<string, unknown> & { sessions: { current: boolean }[] };
  assert.equal(me.id, a.id);
  assert.equal(me.email, a.email);
  assert.equal(me.emailVerified, false);
  assert.equal(me.slug, a.slug);
  assert.equal(typeof me.plan, 'string');
  assert.deepEqual(me.linkedProviders, []);
  assert.equal((me.lastLogin as { ip: string }).ip, '127.0.0.x');
  assert.equal(me.sessions.filter((x) => x.current).length, 1);
  const viaGet = await s.request(`/graphql?query=${encodeURIComponent('{ me { email } }')}`, { bearer: a.token });
  assert.deepEqual(ok(viaGet), { me: { email: a.email } });
});

test('every account mutation works end to end over GraphQL', async () => {
  const email = uniqueEmail('gql');
  const created = ok(await gql(s, M.signup, { email, password: PASSWORD })).signup as { id: string; emailVerified: boolean };
  assert.equal(created.emailVerified, false);
  const verifyMail = await s.smtp.waitFor(email, 'verify-email');

  const loginReply = await gql(s, M.login, { email, password: PASSWORD });
  const auth = ok(loginReply).login as { token: string; emailVerified: boolean; expiresAt: string };
  assert.equal(sessionCookie(loginReply), auth.token, 'login over GraphQL sets the cookie too');
  const bearer = auth.token;

  assert.deepEqual(ok(await gql(s, M.resendVerification, {}, { bearer })), { resendVerification: true });
  assert.deepEqual(ok(await gql(s, M.verifyEmail, { token: verifyMail.token })), { verifyEmail: { emailVerified: true } });
  await s.smtp.waitFor(email, 'welcome');

  const newEmail = uniqueEmail('gql-new');
  assert.deepEqual(ok(await gql(s, M.changeEmail, { p: PASSWORD, e: newEmail }, { bearer })), { changeEmail: true });
  const changeMail = await s.smtp.waitFor(newEmail, 'confirm-email-change');
  assert.deepEqual(ok(await gql(s, M.confirmEmailChange, { token: changeMail.token })), { confirmEmailChange: { email: newEmail } });

  assert.deepEqual(ok(await gql(s, M.changePassword, { p: PASSWORD, n: 'second password' }, { bearer })), { changePassword: true });
  assert.deepEqual(ok(await gql(s, M.forgotPassword, { email: newEmail })), { forgotPassword: true });
  const resetMail = await s.smtp.waitFor(newEmail, 'reset-password');
  assert.deepEqual(ok(await gql(s, M.resetPassword, { token: resetMail.token, n: 'third password' })), { resetPassword: true });
  assert.equal((await s.request('/api/account', { bearer })).status, 401, 'reset revoked the session');

  const account = { email: newEmail, password: 'third password' };
  const one = await login(s, account);
  const two = await login(s, account);
  const slug = `gql-${Date.now().toString(36)}`;
  assert.deepEqual(ok(await gql(s, M.renameSlug, { slug }, { bearer: one.token })), { renameSlug: { slug } });
  const sessions = (ok(await gql(s, ME, {}, { bearer: one.token })).me as { sessions: { id: string; current: boolean }[] }).sessions;
  const twoId = sessions.find((x) => !x.current)!.id;
  assert.deepEqual(ok(await gql(s, M.revokeSession, { id: twoId }, { bearer: one.token })), { revokeSession: true });
  assert.equal((await s.request('/api/account', { bearer: two.token })).status, 401);
  assert.deepEqual(ok(await gql(s, M.logout, {}, { bearer: one.token })), { logout: true });
  assert.equal((await s.request('/api/account', { bearer: one.token })).status, 401);
  const three = await login(s, account);
  assert.deepEqual(ok(await gql(s, M.logoutAll, {}, { bearer: three.token })), { logoutAll: true });
  const four = await login(s, account);
  assert.deepEqual(ok(await gql(s, M.deleteAccount, { email: newEmail, password: 'third password' }, { bearer: four.token })), {
    deleteAccount: true,
  });
  assert.equal(await s.deps.db.account.count({ where: { id: created.id } }), 0);
});

interface ParityCase {
  name: string;
  rest: { method: string; path: string; body?: unknown; bearer?: string };
  gql: { query: string; variables: Record<string, unknown>; bearer?: string };
  status: number;
  code: string;
}

test('GraphQL answers the same extensions.code as the REST status for the same input', async () => {
  const a = await signedIn(s);
  const b = await signup(s);
  const ownSession = (await s.request('/api/sessions', { bearer: a.token })).json.sessions[0].id;
  const unknownId = '00000000-0000-0000-0000-000000000000';
  const cases: ParityCase[] = [
    { name: 'signup invalid email', rest: { method: 'POST', path: '/auth/signup', body: { email: 'nope', password: PASSWORD } }, gql: { query: M.signup, variables: { email: 'nope', password: PASSWORD } }, status: 400, code: 'BAD_REQUEST' },
    { name: 'signup short password', rest: { method: 'POST', path: '/auth/signup', body: { email: uniqueEmail(), password: 'short' } }, gql: { query: M.signup, variables: { email: uniqueEmail(), password: 'short' } }, status: 400, code: 'BAD_REQUEST' },
    { name: 'signup taken', rest: { method: 'POST', path: '/auth/signup', body: { email: b.email, password: PASSWORD } }, gql: { query: M.signup, variables: { email: b.email, password: PASSWORD } }, status: 409, code: 'CONFLICT' },
    { name: 'login wrong password', rest: { method: 'POST', path: '/auth/login', body: { email: b.email, password: 'wrong pass' } }, gql: { query: M.login, variables: { email: b.email, password: 'wrong pass' } }, status: 401, code: 'UNAUTHENTICATED' },
    { name: 'verify bad token', rest: { method: 'POST', path: '/auth/verify-email', body: { token: 'x'.repeat(32) } }, gql: { query: M.verifyEmail, variables: { token: 'x'.repeat(32) } }, status: 400, code: 'BAD_REQUEST' },
    { name: 'resend signed out', rest: { method: 'POST', path: '/auth/resend-verification' }, gql: { query: M.resendVerification, variables: {} }, status: 401, code: 'UNAUTHENTICATED' },
    { name: 'change email wrong password', rest: { method: 'POST', path: '/auth/change-email', body: { current_password: 'wrong pass', new_email: uniqueEmail() }, bearer: a.token }, gql: { query: M.changeEmail, variables: { p: 'wrong pass', e: uniqueEmail() }, bearer: a.token }, status: 401, code: 'UNAUTHENTICATED' },
    { name: 'change email in use', rest: { method: 'POST', path: '/auth/change-email', body: { current_password: a.password, new_email: b.email }, bearer: a.token }, gql: { query: M.changeEmail, variables: { p: a.password, e: b.email }, bearer: a.token }, status: 409, code: 'CONFLICT' },
    { name: 'change email invalid', rest: { method: 'POST', path: '/auth/change-email', body: { current_password: a.password, new_email: 'bad' }, bearer: a.token }, gql: { query: M.changeEmail, variables: { p: a.password, e: 'bad' }, bearer: a.token }, status: 400, code: 'BAD_REQUEST' },
    { name: 'confirm change bad token', rest: { method: 'POST', path: '/auth/confirm-email-change', body: { token: 'y'.repeat(32) } }, gql: { query: M.confirmEmailChange, variables: { token: 'y'.repeat(32) } }, status: 400, code: 'BAD_REQUEST' },
    { name: 'change password wrong', rest: { method: 'POST', path: '/auth/change-password', body: { current_password: 'wrong pass', new_password: 'long enough' }, bearer: a.token }, gql: { query: M.changePassword, variables: { p: 'wrong pass', n: 'long enough' }, bearer: a.token }, status: 401, code: 'UNAUTHENTICATED' },
    { name: 'change password short', rest: { method: 'POST', path: '/auth/change-password', body: { current_password: a.password, new_password: 'short' }, bearer: a.token }, gql: { query: M.changePassword, variables: { p: a.password, n: 'short' }, bearer: a.token }, status: 400, code: 'BAD_REQUEST' },
    { name: 'change password signed out', rest: { method: 'POST', path: '/auth/change-password', body: { current_password: a.password, new_password: 'long enough' } }, gql: { query: M.changePassword, variables: { p: a.password, n: 'long enough' } }, status: 401, code: 'UNAUTHENTICATED' },
    { name: 'reset bad token', rest: { method: 'POST', path: '/auth/reset-password', body: { token: 'z'.repeat(32), new_password: 'long enough' } }, gql: { query: M.resetPassword, variables: { token: 'z'.repeat(32), n: 'long enough' } }, status: 400, code: 'BAD_REQUEST' },
    { name: 'rename reserved', rest: { method: 'PATCH', path: '/api/account/slug', body: { slug: 'admin' }, bearer: a.token }, gql: { query: M.renameSlug, variables: { slug: 'admin' }, bearer: a.token }, status: 400, code: 'BAD_REQUEST' },
    { name: 'rename taken', rest: { method: 'PATCH', path: '/api/account/slug', body: { slug: b.slug }, bearer: a.token }, gql: { query: M.renameSlug, variables: { slug: b.slug }, bearer: a.token }, status: 409, code: 'CONFLICT' },
    { name: 'rename signed out', rest: { method: 'PATCH', path: '/api/account/slug', body: { slug: 'fine-slug' } }, gql: { query: M.renameSlug, variables: { slug: 'fine-slug' } }, status: 401, code: 'UNAUTHENTICATED' },
    { name: 'revoke own session', rest: { method: 'DELETE', path: `/api/sessions/${ownSession}`, bearer: a.token }, gql: { query: M.revokeSession, variables: { id: ownSession }, bearer: a.token }, status: 400, code: 'BAD_REQUEST' },
    { name: 'revoke unknown session', rest: { method: 'DELETE', path: `/api/sessions/${unknownId}`, bearer: a.token }, gql: { query: M.revokeSession, variables: { id: unknownId }, bearer: a.token }, status: 404, code: 'NOT_FOUND' },
    { name: 'logout signed out', rest: { method: 'POST', path: '/auth/logout' }, gql: { query: M.logout, variables: {} }, status: 401, code: 'UNAUTHENTICATED' },
    { name: 'logout-all signed out', rest: { method: 'POST', path: '/auth/logout-all' }, gql: { query: M.logoutAll, variables: {} }, status: 401, code: 'UNAUTHENTICATED' },
    { name: 'delete wrong password', rest: { method: 'DELETE', path: '/api/account', body: { email: a.email, password: 'wrong pass' }, bearer: a.token }, gql: { query: M.deleteAccount, variables: { email: a.email, password: 'wrong pass' }, bearer: a.token }, status: 401, code: 'UNAUTHENTICATED' },
    { name: 'delete email mismatch', rest: { method: 'DELETE', path: '/api/account', body: { email: b.email, password: a.password }, bearer: a.token }, gql: { query: M.deleteAccount, variables: { email: b.email, password: a.password }, bearer: a.token }, status: 400, code: 'BAD_REQUEST' },
  ];
  for (const c of cases) {
    const rest = await s.request(c.rest.path, {
      method: c.rest.method,
      ...(c.rest.body !== undefined ? { body: c.rest.body } : {}),
      ...(c.rest.bearer ? { bearer: c.rest.bearer } : {}),
    });
    assertProblem(rest, c.status, c.code);
    const g = await gql(s, c.gql.query, c.gql.variables, c.gql.bearer ? { bearer: c.gql.bearer } : {});
    assert.equal(gqlCode(g), c.code, `${c.name}: ${g.text}`);
  }
});

test('the resend cap answers RATE_LIMITED on both surfaces, with retryAfter over GraphQL', async () => {
  const a = await signedIn(s);
  for (let i = 0; i < 5; i++) assert.equal(gqlCode(await gql(s, M.resendVerification, {}, { bearer: a.token })), null);
  const g = await gql(s, M.resendVerification, {}, { bearer: a.token });
  assert.equal(gqlCode(g), 'RATE_LIMITED');
  assert.ok(Number(g.json.errors[0].extensions.retryAfter) >= 1);
  assertProblem(await s.request('/auth/resend-verification', { method: 'POST', bearer: a.token }), 429, 'RATE_LIMITED');
});

test('queries nested deeper than 10 levels are refused with BAD_REQUEST; validation errors use catalog codes', async () => {
  let inner = '__typename';
  for (let i = 0; i < 11; i++) inner = `sessions { ${inner} }`;
  const deep = await gql(s, `{ me { ${inner} } }`);
  assert.equal(gqlCode(deep), 'BAD_REQUEST', deep.text);
  assert.match(deep.json.errors[0].message, /depth/i);
  assert.equal(deep.json.data ?? null, null);
  const unknownField = await gql(s, '{ me { noSuchField } }');
  assert.equal(gqlCode(unknownField), 'BAD_REQUEST', unknownField.text);
  const syntax = await gql(s, '{ me { ');
  assert.equal(gqlCode(syntax), 'BAD_REQUEST');
  const wrongType = await gql(s, M.forgotPassword, { email: 5 });
  assert.equal(gqlCode(wrongType), 'BAD_REQUEST');
});
