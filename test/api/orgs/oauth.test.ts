// OAuth-protected tunnels of an organization (API.md section 18): every member with a verified
// address may be granted access besides `allowed_emails`; a non-member or an unverified member
// may not; a member's removal turns their tokens for its tunnels inactive at once, cached
// introspection answers included.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fromIp, randomIp, signedIn, type SignedIn } from '../../support/accounts.js';
import { gql, gqlCode } from '../../support/graphql.js';
import { useServer } from '../../support/server.js';
import { uniqueSubdomain } from '../../support/tunnels.js';
import { api as apiAs, form, grantedTokens, toConsent } from '../../support/oauth.js';

const ZONE = 'tunnels.example.test';
const INTERNAL = 'internal-test-token-0123456789abcdef';
const s = useServer(() => ({ env: { ZONE, TRUST_PROXY: 'true', INTERNAL_API_TOKEN: INTERNAL } }));

type Person = SignedIn & { headers: Record<string, string> };
async function person(verified = true): Promise<Person> {
  const headers = fromIp(randomIp());
  return { ...(await signedIn(s, { headers, verified })), headers };
}
const introspect = (token: string) => form(s, '/oauth/introspect', { token }, { authorization: `Bearer ${INTERNAL}` });

test("an organization's oauth tunnel: verified members are allowed; removal makes their tokens inactive at once", async () => {
  const owner = await person();
  const slug = `oa-${Date.now().toString(36)}`;
  assert.equal((await s.request('/api/orgs', { method: 'POST', bearer: owner.token, body: { slug, name: 'OAuth Org' } })).status, 201);
  const org = (await s.request(`/api/orgs/${slug}`, { bearer: owner.token })).json;
  const member = await person();
  const unverified = await person(false);
  const stranger = await person();
  for (const p of [member, unverified]) await s.deps.db.orgMember.create({ data: { orgId: org.id, accountId: p.id, role: 'member' } });
  const created = await s.request(`/api/orgs/${slug}/tunnels`, { method: 'POST', bearer: owner.token, body: { subdomain: uniqueSubdomain('oa'), access: 'oauth' } });
  assert.equal(created.status, 201, created.text);
  const tunnel = { id: created.json.id as string, host: created.json.host as string };

  // A member with a verified address: granted, and the token introspects active.
  const tokens = await grantedTokens(s, member, await toConsent(s, member, tunnel));
  const active = await introspect(tokens.access_token);
  assert.equal(active.json.active, true, active.text);
  assert.equal(active.json.sub, member.id);

  // Neither a stranger nor an unverified member may approve.
  for (const p of [stranger, unverified]) {
    const flow = await toConsent(s, p, tunnel);
    const described = await apiAs(p, `/api/oauth/requests/${flow.id}`, 'GET', s);
    assert.equal(described.json.allowed, false, described.text);
    assert.equal((await apiAs(p, `/api/oauth/requests/${flow.id}/approve`, 'POST', s)).status, 403);
  }

  // Who holds access: the organization's admins and owners see and revoke it; a member may not.
  const grantsQuery = 'query ($id: ID!) { tunnel(id: $id) { accessGrants { id email } } }';
  const held = await gql(s, grantsQuery, { id: tunnel.id }, { bearer: owner.token });
  assert.deepEqual(held.json.data?.tunnel.accessGrants.map((g: { email: string }) => g.email), [member.email], held.text);
  assert.equal(gqlCode(await gql(s, grantsQuery, { id: tunnel.id }, { bearer: member.token })), 'FORBIDDEN');
  const grantId = held.json.data.tunnel.accessGrants[0].id as string;
  const revoke = 'mutation ($t: ID!, $g: ID!) { revokeTunnelAccess(tunnelId: $t, grantId: $g) }';
  assert.equal(gqlCode(await gql(s, revoke, { t: tunnel.id, g: grantId }, { bearer: member.token })), 'FORBIDDEN');
  assert.equal(gqlCode(await gql(s, revoke, { t: tunnel.id, g: grantId }, { bearer: owner.token })), null);
  assert.deepEqual((await introspect(tokens.access_token)).json, { active: false }, 'revoked by the owner');
  const again = await grantedTokens(s, member, await toConsent(s, member, tunnel));
  tokens.access_token = again.access_token;

  // Removed: inactive on the next introspection, though the active answer was cached.
  assert.equal((await introspect(tokens.access_token)).json.active, true);
  assert.equal((await s.request(`/api/orgs/${slug}/members/${member.id}`, { method: 'DELETE', bearer: owner.token })).status, 204);
  assert.deepEqual((await introspect(tokens.access_token)).json, { active: false });
});
