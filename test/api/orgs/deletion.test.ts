// Deleting an account that belongs to organizations (API.md section 18): the last owner of an
// organization with other members is refused (409 naming it, on REST and GraphQL) and nothing
// goes; an organization whose only member is the account goes with it (its tunnels' hosts answer
// 404 at once, its tokens stop, its slug is held); an organization with another owner stays, and
// every organization the account was in hears of it as of a member leaving (audit, webhooks).
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { PASSWORD, signedIn, type SignedIn } from '../../support/accounts.js';
import { gql, gqlCode } from '../../support/graphql.js';
import { addMember, createOrg } from '../../support/orgs.js';
import { assertProblem } from '../../support/problem.js';
import { useServer } from '../../support/server.js';
import { card, uniqueSubdomain } from '../../support/tunnels.js';
import { WebhookReceiver } from '../../support/webhook-receiver.js';
import { deleteAccount } from '../../../src/domain/accounts/deletion.js';
import { orgDeletionHooks } from '../../../src/domain/orgs/account-deletion.js';

const ZONE = 'tunnels.example.test';
const receiver = await WebhookReceiver.start();
after(() => receiver.close());
const s = useServer({ env: { ZONE, WEBHOOK_ALLOW_PRIVATE: 'true' } });

const del = (who: SignedIn, password = PASSWORD) => s.request('/api/account', { method: 'DELETE', bearer: who.token, body: { email: who.email, password } });

test('the last owner of organizations with other members: 409 naming them, on REST and GraphQL; nothing goes', async () => {
  const a = await signedIn(s, { verified: true });
  const shared1 = await createOrg(s, a, 'shared');
  const shared2 = await createOrg(s, a, 'shared');
  const alone = await createOrg(s, a, 'alone');
  const other = await signedIn(s, { verified: true });
  await addMember(s, shared1, other, 'member');
  await addMember(s, shared2, other, 'admin');
  assertProblem(await del(a, 'not the password'), 401, 'UNAUTHENTICATED');
  const r = await del(a);
  assertProblem(r, 409, 'CONFLICT');
  assert.match(r.json.type, /\/problems\/owns-organizations$/);
  assert.ok(r.json.detail.includes(shared1.slug) && r.json.detail.includes(shared2.slug), r.json.detail);
  assert.ok(!r.json.detail.includes(alone.slug), 'an organization with no other member is not in the way');
  const g = await gql(s, 'mutation ($email: String!, $password: String!) { deleteAccount(email: $email, password: $password) }', { email: a.email, password: PASSWORD }, { bearer: a.token });
  assert.equal(gqlCode(g), 'CONFLICT');
  assert.match(g.json.errors[0].message, new RegExp(shared1.slug));
  // Nothing went: the account, and every organization (the one it alone belongs to included).
  assert.equal((await s.request('/api/account', { bearer: a.token })).status, 200);
  for (const org of [shared1, shared2, alone]) assert.equal((await s.request(`/api/orgs/${org.slug}`, { bearer: a.token })).status, 200, org.slug);
});

test('once another member owns it, the account goes and the organization stays with its new owner', async () => {
  const a = await signedIn(s, { verified: true });
  const org = await createOrg(s, a);
  const other = await signedIn(s, { verified: true });
  await addMember(s, org, other, 'member');
  assertProblem(await del(a), 409, 'CONFLICT');
  assert.equal((await s.request(`/api/orgs/${org.slug}/members/${other.id}`, { method: 'PATCH', bearer: a.token, body: { role: 'owner' } })).status, 200);
  assert.equal((await del(a)).status, 204);
  const members = (await s.request(`/api/orgs/${org.slug}/members`, { bearer: other.token })).json.members;
  assert.deepEqual(members.map((m: { account_id: string; role: string }) => [m.account_id, m.role]), [[other.id, 'owner']]);
});

test('an organization whose only member is the account goes with it: hosts 404 at once, tokens stop, slug held', async () => {
  const a = await signedIn(s, { verified: true });
  const org = await createOrg(s, a);
  const sub = uniqueSubdomain('del');
  assert.equal((await s.request(`/api/orgs/${org.slug}/tunnels`, { method: 'POST', bearer: a.token, body: { subdomain: sub } })).status, 201);
  const t = (await s.request(`/api/orgs/${org.slug}/tunnels`, { bearer: a.token })).json.tunnels[0];
  assert.equal((await s.request(`/api/tunnels/${t.id}`, { method: 'PATCH', bearer: a.token, body: { discoverable: true } })).status, 200);
  const host = `${sub}--${org.slug}.${ZONE}`;
  assert.equal((await card(s, host)).status, 200);
  const token = (await s.request(`/api/orgs/${org.slug}/tokens`, { method: 'POST', bearer: a.token, body: { name: 'ci', scopes: ['tunnels:read'] } })).json.token;
  assert.equal((await s.request('/api/tunnels', { bearer: token })).status, 200);

  // Via GraphQL this time.
  const g = await gql(s, 'mutation ($email: String!, $password: String!) { deleteAccount(email: $email, password: $password) }', { email: a.email, password: PASSWORD }, { bearer: a.token });
  assert.equal(g.json.data?.deleteAccount, true, g.text);
  assert.equal((await card(s, host)).status, 404);
  assertProblem(await s.request('/api/tunnels', { bearer: token }), 401, 'UNAUTHENTICATED');
  assert.equal(await s.deps.db.account.count({ where: { id: org.id } }), 0);
  assert.equal(await s.deps.db.tunnel.count({ where: { id: t.id } }), 0);
  const squatter = await signedIn(s, { verified: true });
  assertProblem(await s.request('/api/orgs', { method: 'POST', bearer: squatter.token, body: { slug: org.slug, name: 'Mine' } }), 409, 'CONFLICT');
});

test('an organization with another owner stays, without the account', async () => {
  const a = await signedIn(s, { verified: true });
  const org = await createOrg(s, a);
  const co = await signedIn(s, { verified: true });
  await addMember(s, org, co, 'owner');
  // …and a plain member of another organization, whose webhook listens for members.
  const other = await createOrg(s, co);
  await addMember(s, other, a, 'member');
  const hook = await s.request(`/api/orgs/${other.slug}/webhooks`, { method: 'POST', bearer: co.token, body: { url: `${receiver.url}/deleted-member`, events: ['org.member'] } });
  assert.equal(hook.status, 201, hook.text);
  assert.equal((await del(a)).status, 204);
  const members = (await s.request(`/api/orgs/${org.slug}/members`, { bearer: co.token })).json.members;
  assert.deepEqual(members.map((m: { account_id: string }) => m.account_id), [co.id]);
  // Both organizations' logs record the member leaving, by the account itself.
  for (const [o, role] of [[org, 'owner'], [other, 'member']] as const) {
    const events = (await s.request(`/api/orgs/${o.slug}/audit`, { bearer: co.token })).json.events;
    assert.deepEqual(
      events.filter((e: { type: string }) => e.type === 'member_left').map((e: { actor: unknown; target: unknown }) => [e.actor, e.target]),
      [[{ account_id: a.id, email: a.email }, { account_id: a.id, email: a.email, role, reason: 'account_deleted' }]],
      o.slug,
    );
  }
  await receiver.waitFor(() => receiver.received.some((r) => r.path === '/deleted-member'));
  const heard = receiver.received.filter((r) => r.path === '/deleted-member').map((r) => JSON.parse(r.body) as { type: string; data: unknown });
  assert.deepEqual(
    heard.map((h) => [h.type, h.data]),
    [['org.member', { action: 'left', org: { id: other.id, slug: other.slug }, member: { account_id: a.id, email: a.email, role: null } }]],
  );
});

test('a co-owner stepping down while the deletion runs: refused under the organizations’ locks, nothing goes', async () => {
  const a = await signedIn(s, { verified: true });
  const org = await createOrg(s, a);
  const co = await signedIn(s, { verified: true });
  await addMember(s, org, co, 'owner');
  const viewer = { accountId: a.id, sessionId: 'race', tokenHash: '', authenticatedAt: 0, scopes: null };
  const hooks = orgDeletionHooks(s.deps, { viewer, client: { ip: '127.0.0.1', userAgent: 'test' } });
  const racing = deleteAccount(s.deps, viewer, { email: a.email, password: PASSWORD }, { ip: '127.0.0.1', userAgent: 'test' }, {
    async before(accountId) {
      await hooks.before(accountId);
      // Meanwhile, the other owner steps down: the account is now the last owner, with a member.
      await s.deps.db.orgMember.update({ where: { orgId_accountId: { orgId: org.id, accountId: co.id } }, data: { role: 'member' } });
    },
    within: hooks.within,
  });
  await assert.rejects(racing, (err: Error & { code?: string }) => err.code === 'CONFLICT' && err.message.includes(org.slug));
  assert.equal((await s.request('/api/account', { bearer: a.token })).status, 200);
  assert.equal((await s.request(`/api/orgs/${org.slug}`, { bearer: co.token })).status, 200);
});
