// Introspection at the speed of a session check (API.md section 13): a warm answer comes from the
// cache, without reading the grant, the tunnel or the account again; every change that can turn a
// token inactive drops the cached answers on every instance at once; and a revocation made while
// Redis is down is not undone when it comes back.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fromIp, randomIp, signedIn, type SignedIn } from '../../support/accounts.js';
import { useServer, type Server } from '../../support/server.js';
import { shared, useInstancesBehindRedisProxy } from '../../support/redis-outage.js';
import { patchTunnel } from '../../support/tunnels.js';
import { form, grantedTokens, toConsent } from '../../support/oauth.js';

const ZONE = 'tunnels.example.test';
const INTERNAL = 'internal-test-token-0123456789abcdef';
const ENV = { ZONE, TRUST_PROXY: 'true', INTERNAL_API_TOKEN: INTERNAL };
const s = useServer({ env: ENV });

type Person = SignedIn & { headers: Record<string, string> };
async function person(server: Server): Promise<Person> {
  const headers = fromIp(randomIp());
  return { ...(await signedIn(server, { headers, verified: true })), headers };
}
const introspect = (server: Server, token: string) => form(server, '/oauth/introspect', { token }, { authorization: `Bearer ${INTERNAL}` });

/** An access token of `owner` for its own new oauth tunnel, issued through `server`. */
async function issued(server: Server, owner: Person) {
  const flow = await toConsent(server, owner);
  const tokens = await grantedTokens(server, owner, flow);
  return { ...flow, access: tokens.access_token as string };
}

test('a warm introspection answers from the cache: the grant is not read again until something changes', async () => {
  const owner = await person(s);
  const { access, tunnel } = await issued(s, owner);
  assert.equal((await introspect(s, access)).json.active, true);
  // Gone behind the server's back (no committed change told anyone): the cached answer stands,
  // which shows the warm path reads nothing from the database.
  const grants = await s.deps.db.oAuthModel.deleteMany({ where: { kind: 'Grant', accountId: owner.id } });
  assert.equal(grants.count, 1);
  assert.equal((await introspect(s, access)).json.active, true, 'answered from the cache');
  // Any committed change that can alter an answer drops every cached one.
  assert.equal((await patchTunnel(s, owner, tunnel.id, { allowed_emails: ['someone@example.com'] })).status, 200);
  assert.deepEqual((await introspect(s, access)).json, { active: false });
});

test('an inactive answer is not cached: a token is checked again on every call until it is active', async () => {
  const owner = await person(s);
  const { access } = await issued(s, owner);
  const forged = `${access.slice(0, -4)}AAAA`;
  assert.deepEqual((await introspect(s, forged)).json, { active: false });
  assert.deepEqual((await introspect(s, forged)).json, { active: false });
  assert.equal((await introspect(s, access)).json.active, true);
});

// Two instances behind one Redis that can go down.
const { proxy, a, b, redisBack } = useInstancesBehindRedisProxy(ENV);

test('revoked on one instance, inactive on the other at once, though it had the answer cached', shared, async () => {
  const owner = await person(a());
  const { access } = await issued(a(), owner);
  assert.equal((await introspect(b(), access)).json.active, true);
  assert.equal((await introspect(b(), access)).json.active, true, 'warm on B');
  const grants = await a().request('/api/oauth/grants', { bearer: owner.token });
  assert.equal((await a().request(`/api/oauth/grants/${grants.json.grants[0].id}`, { method: 'DELETE', bearer: owner.token })).status, 204);
  assert.deepEqual((await introspect(b(), access)).json, { active: false }, 'B, right after the revocation on A');
});

test('a grant revoked on A while Redis is down stays inactive on B when Redis returns', shared, async () => {
  const owner = await person(a());
  const victim = await issued(a(), owner);
  const kept = await issued(a(), owner);
  assert.equal((await introspect(b(), victim.access)).json.active, true);
  assert.equal((await introspect(b(), kept.access)).json.active, true);
  const grants = (await a().request('/api/oauth/grants', { bearer: owner.token })).json.grants as { id: string; resource: string }[];
  const grant = grants.find((g) => g.resource === victim.resource)!;
  proxy().block();
  try {
    assert.equal((await a().request(`/api/oauth/grants/${grant.id}`, { method: 'DELETE', bearer: owner.token })).status, 204);
    assert.deepEqual((await introspect(b(), victim.access)).json, { active: false }, 'B during the outage');
  } finally {
    proxy().unblock();
  }
  await redisBack();
  const back = Date.now();
  while (Date.now() - back < 2500) {
    const ms = Date.now() - back;
    assert.deepEqual((await introspect(b(), victim.access)).json, { active: false }, `B, ${ms} ms after Redis returned`);
    assert.equal((await introspect(b(), kept.access)).json.active, true, 'the other grant still answers on B');
    await new Promise((r) => setTimeout(r, 50));
  }
});
