import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestServer, uniqueEmail, type TestServer } from '../helpers/server.js';

let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(async () => {
  await s.close();
});

test('signup then login returns a bearer token that GET /api/account accepts', async () => {
  const email = uniqueEmail();
  const signup = await s.request('/auth/signup', { method: 'POST', body: { email, password: 'correct horse' } });
  assert.equal(signup.status, 201);
  assert.equal(signup.json.email_verified, false);
  await s.smtp.waitFor(email, 'verify-email');
  const login = await s.request('/auth/login', { method: 'POST', body: { email, password: 'correct horse' } });
  assert.equal(login.status, 200);
  const me = await s.request('/api/account', { bearer: login.json.token });
  assert.equal(me.status, 200);
  assert.equal(me.json.email, email);
});
