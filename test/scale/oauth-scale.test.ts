// OAuth for tunnels scaled out (API.md section 13): two instances behind HAProxy (round robin) on
// PgBouncer and a Redis Cluster, one issuer. Registration, authorization, consent, the code
// exchange, refresh and introspection land on whichever instance the balancer picks, and each
// honours what the other issued: the same keys, the same stored models, the same consent binding.
// "Once means once, even at the same moment" (section 13a) holds across them: one code or one
// refresh token presented on both instances at once (test/support/oauth-races.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createLocalJWKSet, jwtVerify } from 'jose';
import { fromIp, randomIp, signedIn } from '../support/accounts.js';
import { needs } from '../support/backends.js';
import { useFixture } from '../support/fixture.js';
import { api, form, grantedTokens, toConsent } from '../support/oauth.js';
import { person, raceCodeExchange, raceRefresh, type RaceSetting } from '../support/oauth-races.js';
import { needsPrograms } from '../support/programs.js';
import { SCALE_PROGRAMS, startScaledOut } from '../support/scale.js';

const ZONE = 'oauth.scale.localhost';
const ISSUER = 'http://api.oauth-scale.test';
const INTERNAL = 'internal-test-token-0123456789abcdef';
const programs = needsPrograms(SCALE_PROGRAMS, 'two instances behind HAProxy on a Redis Cluster and PgBouncer');
const real = needs(['DATABASE_URL'], 'runs once, in the real-backend pass, on a fresh database of that PostgreSQL');
const opts = programs.skip ? programs : real;

const world = useFixture(
  () => startScaledOut({ instances: 2, databaseUrl: process.env.DATABASE_URL!, env: { ZONE, BASE_URL: ISSUER, APP_URL: ISSUER, TRUST_PROXY: 'true', INTERNAL_API_TOKEN: INTERNAL } }),
  (w) => w.close(),
  opts,
);

test('behind the balancer, each instance honours what the other issued', opts, async () => {
  const lb = world().lb;
  const headers = fromIp(randomIp());
  const owner = { ...(await signedIn(lb, { headers, verified: true })), headers };
  const flow = await toConsent(lb, owner);
  const tokens = await grantedTokens(lb, owner, flow);
  // Both instances publish the same keys and verify the token; both introspect it as active.
  for (const instance of world().instances) {
    const jwks = (await instance.request('/oauth/jwks')).json;
    const { payload } = await jwtVerify(tokens.access_token, createLocalJWKSet(jwks), { issuer: ISSUER, audience: flow.resource });
    assert.equal(payload.sub, owner.id);
    const r = await form(instance, '/oauth/introspect', { token: tokens.access_token }, { authorization: `Bearer ${INTERNAL}` });
    assert.equal(r.json.active, true, `${instance.url}: ${r.text}`);
  }
  // Refresh twice through the balancer (so on both instances), then revoke through it: inactive on both.
  let refresh = tokens.refresh_token as string;
  for (let i = 0; i < 2; i++) {
    const r = await form(lb, '/oauth/token', { grant_type: 'refresh_token', refresh_token: refresh, client_id: flow.client.client_id });
    assert.equal(r.status, 200, r.text);
    refresh = r.json.refresh_token;
  }
  const grants = await api(owner, '/api/oauth/grants', 'GET', lb);
  assert.equal(grants.json.grants.length, 1);
  assert.equal((await api(owner, `/api/oauth/grants/${grants.json.grants[0].id}`, 'DELETE', lb)).status, 204);
  for (const instance of world().instances) {
    const r = await form(instance, '/oauth/introspect', { token: tokens.access_token }, { authorization: `Bearer ${INTERNAL}` });
    assert.deepEqual(r.json, { active: false });
  }
});

// The raced requests go straight to the instances, half to each, released together; accounts,
// consent and the checks of the database go through the balancer.
const split = (): RaceSetting => ({ setup: world().lb, targets: world().instances, internalToken: INTERNAL });
const ROUNDS = 4;

for (const n of [2, 5]) {
  test(`${n} exchanges of one code on both instances at once: one gets tokens, the others invalid_grant, and what it got is revoked`, opts, async () => {
    const owner = await person(world().lb);
    for (let round = 0; round < ROUNDS; round++) await raceCodeExchange(split(), owner, n);
  });

  test(`${n} refreshes with one refresh token on both instances at once: one successor, no fork; the original afterwards is reuse`, opts, async () => {
    const owner = await person(world().lb);
    for (let round = 0; round < ROUNDS; round++) await raceRefresh(split(), owner, n);
  });
}
