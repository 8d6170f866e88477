// Organization webhooks (API.md section 18): every section 15 operation under
// /api/orgs/<slug>/webhooks for admins and owners (members 403, strangers 404, tokens 403), on
// endpoints of the organization's own; they receive its tunnels' events and `org.member`
// (verified with the official `standardwebhooks` verifier), each change is in the audit log,
// and a notice about an endpoint goes to the owners and admins, never to the organization's
// empty address (nothing is ever queued to an address without an `@`).
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { PASSWORD, signedIn, useSignedIn, type SignedIn } from '../../support/accounts.js';
import { gql, gqlCode } from '../../support/graphql.js';
import { addMember, auditTypes, createOrg, type Org } from '../../support/orgs.js';
import { assertProblem } from '../../support/problem.js';
import { uniqueEmail, useServer } from '../../support/server.js';
import { uniqueSubdomain } from '../../support/tunnels.js';
import { WebhookReceiver, type Received } from '../../support/webhook-receiver.js';
import { webhookDisabled } from '../../../src/domain/emails/messages.js';

const receiver = await WebhookReceiver.start();
after(() => receiver.close());
const s = useServer({ env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
const owner = useSignedIn(s, { email: uniqueEmail('orghook-owner'), verified: true });
const DAY_MS = 24 * 3600_000;

let n = 0;
async function endpoint(org: Org, by: SignedIn, events: string[]): Promise<{ id: string; secret: string; path: string }> {
  const path = `/org-hook/${++n}`;
  const r = await s.request(`/api/orgs/${org.slug}/webhooks`, { method: 'POST', bearer: by.token, body: { url: `${receiver.url}${path}`, events } });
  assert.equal(r.status, 201, r.text);
  return { id: r.json.id, secret: r.json.secret, path };
}

const at = (path: string, type?: string) => receiver.received.filter((r) => r.path === path && (!type || (JSON.parse(r.body) as { type: string }).type === type));
const verified = (secret: string, r: Received) =>
  new Webhook(secret).verify(r.body, {
    'webhook-id': String(r.headers['webhook-id']),
    'webhook-timestamp': String(r.headers['webhook-timestamp']),
    'webhook-signature': String(r.headers['webhook-signature']),
  }) as { type: string; data: Record<string, unknown> };

test('every operation on REST for admins and owners, on the organization’s own endpoints; each change audited', async () => {
  const org = await createOrg(s, owner);
  const admin = await signedIn(s, { verified: true });
  await addMember(s, org, admin, 'admin');
  const created = await s.request(`/api/orgs/${org.slug}/webhooks`, { method: 'POST', bearer: admin.token, body: { url: `${receiver.url}/org-ops`, events: ['tunnel.created', 'org.member'], description: 'ops' } });
  assert.equal(created.status, 201, created.text);
  assert.deepEqual(Object.keys(created.json).sort(), ['created_at', 'description', 'disabled_reason', 'enabled', 'events', 'id', 'secret', 'url']);
  const id = created.json.id;
  const row = await s.deps.db.webhook.findUniqueOrThrow({ where: { id } });
  assert.equal(row.accountId, org.id);
  // The personal list of the member who made it does not show it; the organization's does.
  assert.deepEqual((await s.request('/api/webhooks', { bearer: admin.token })).json.webhooks, []);
  const list = await s.request(`/api/orgs/${org.slug}/webhooks`, { bearer: owner.token });
  assert.equal(list.status, 200, list.text);
  assert.deepEqual(list.json.webhooks.map((w: { id: string }) => w.id), [id]);
  assert.equal('secret' in list.json.webhooks[0], false);
  const one = await s.request(`/api/orgs/${org.slug}/webhooks/${id}`, { bearer: owner.token });
  assert.deepEqual(one.json, list.json.webhooks[0]);
  const patched = await s.request(`/api/orgs/${org.slug}/webhooks/${id}`, { method: 'PATCH', bearer: admin.token, body: { description: 'renamed', events: ['org.member'] } });
  assert.equal(patched.status, 200, patched.text);
  assert.deepEqual([patched.json.description, patched.json.events], ['renamed', ['org.member']]);
  const rotated = await s.request(`/api/orgs/${org.slug}/webhooks/${id}/rotate-secret`, { method: 'POST', bearer: admin.token });
  assert.equal(rotated.status, 200, rotated.text);
  assert.match(rotated.json.secret, /^whsec_/);
  const tested = await s.request(`/api/orgs/${org.slug}/webhooks/${id}/test`, { method: 'POST', bearer: admin.token });
  assert.equal(tested.status, 202, tested.text);
  await receiver.waitFor(() => at('/org-ops', 'webhook.test').length === 1);
  const sig = at('/org-ops', 'webhook.test')[0]!;
  assert.equal(sig.headers['webhook-id'], tested.json.event_id);
  assert.equal(verified(rotated.json.secret, sig).type, 'webhook.test');
  let log: { id: string; type: string; status_code: number }[] = [];
  for (let i = 0; i < 100 && log.length === 0; i++) {
    log = (await s.request(`/api/orgs/${org.slug}/webhooks/${id}/deliveries?limit=5`, { bearer: admin.token })).json.deliveries;
    if (log.length === 0) await new Promise((r) => setTimeout(r, 50));
  }
  assert.deepEqual(log.map((d) => [d.type, d.status_code]), [['webhook.test', 200]]);
  assert.equal((await s.request(`/api/orgs/${org.slug}/webhooks/${id}/deliveries/${log[0]!.id}/retry`, { method: 'POST', bearer: admin.token })).status, 202);
  await receiver.waitFor(() => at('/org-ops', 'webhook.test').length === 2);
  assert.equal((await s.request(`/api/orgs/${org.slug}/webhooks/${id}`, { method: 'DELETE', bearer: owner.token })).status, 204);
  assertProblem(await s.request(`/api/orgs/${org.slug}/webhooks/${id}`, { bearer: owner.token }), 404, 'NOT_FOUND');
  const events = (await s.request(`/api/orgs/${org.slug}/audit`, { bearer: owner.token })).json.events.filter((e: { type: string }) => e.type === 'webhook_changed');
  assert.deepEqual(events.map((e: { target: { action: string } }) => e.target.action), ['deleted', 'secret_rotated', 'updated', 'created']);
  assert.deepEqual(events[3].target, { action: 'created', webhook_id: id, host: new URL(receiver.url).host, events: ['tunnel.created', 'org.member'] });
  assert.deepEqual(events[2].target.changed, ['events', 'description']);
  assert.deepEqual(events[3].actor, { account_id: admin.id, email: admin.email });
  // The member's own activity records nothing of the organization's endpoints.
  const activity = (await s.request('/api/account/activity', { bearer: admin.token })).json.events.map((e: { type: string }) => e.type);
  assert.ok(!activity.includes('webhook_created'), activity.join());
});

test('members get 403, strangers 404, tokens 403; another organization’s endpoint is 404; a recent sign-in to widen', async () => {
  const org = await createOrg(s, owner);
  const other = await createOrg(s, owner);
  const w = await endpoint(org, owner, ['tunnel.created']);
  const theirs = await endpoint(other, owner, ['tunnel.created']);
  const member = await signedIn(s, { verified: true });
  await addMember(s, org, member, 'member');
  const stranger = await signedIn(s, { verified: true });
  const orgToken = (await s.request(`/api/orgs/${org.slug}/tokens`, { method: 'POST', bearer: owner.token, body: { name: 't', scopes: ['tunnels:read', 'tunnels:write'] } })).json.token;
  const personal = (await s.request('/api/tokens', { method: 'POST', bearer: owner.token, body: { name: 't', scopes: ['tunnels:read', 'tunnels:write', 'account:read'] } })).json.token;
  const probes = [
    ['POST', '', { url: `${receiver.url}/x`, events: ['tunnel.created'] }],
    ['GET', '', undefined],
    ['GET', `/${w.id}`, undefined],
    ['PATCH', `/${w.id}`, { description: 'x' }],
    ['DELETE', `/${w.id}`, undefined],
    ['POST', `/${w.id}/rotate-secret`, undefined],
    ['POST', `/${w.id}/test`, undefined],
    ['GET', `/${w.id}/deliveries`, undefined],
  ] as const;
  for (const [method, path, body] of probes) {
    const url = `/api/orgs/${org.slug}/webhooks${path}`;
    assertProblem(await s.request(url, { method, bearer: member.token, body }), 403, 'FORBIDDEN', `member ${method} ${path}`);
    assertProblem(await s.request(url, { method, bearer: stranger.token, body }), 404, 'NOT_FOUND', `stranger ${method} ${path}`);
    assertProblem(await s.request(url, { method, bearer: orgToken, body }), 403, 'FORBIDDEN', `org token ${method} ${path}`);
    assertProblem(await s.request(url, { method, bearer: personal, body }), 403, 'FORBIDDEN', `personal token ${method} ${path}`);
  }
  for (const [method, path, body] of probes.slice(2)) {
    const url = `/api/orgs/${org.slug}/webhooks${path.replace(w.id, theirs.id)}`;
    assertProblem(await s.request(url, { method, bearer: owner.token, body }), 404, 'NOT_FOUND', `another's ${method} ${path}`);
  }
  // Through the personal paths, the organization's endpoint is nobody's.
  assertProblem(await s.request(`/api/webhooks/${w.id}`, { method: 'PATCH', bearer: owner.token, body: { description: 'x' } }), 404, 'NOT_FOUND');
  s.clock.advance(600_000 + 1000);
  try {
    assertProblem(await s.request(`/api/orgs/${org.slug}/webhooks`, { method: 'POST', bearer: owner.token, body: { url: `${receiver.url}/x`, events: ['tunnel.created'] } }), 403, 'REAUTH_REQUIRED');
    assertProblem(await s.request(`/api/orgs/${org.slug}/webhooks/${w.id}/rotate-secret`, { method: 'POST', bearer: owner.token }), 403, 'REAUTH_REQUIRED');
    assert.equal((await s.request(`/api/orgs/${org.slug}/webhooks/${w.id}`, { method: 'PATCH', bearer: owner.token, body: { enabled: false } })).status, 200);
    assert.equal((await s.request('/api/account/reauth', { method: 'POST', bearer: owner.token, body: { password: PASSWORD } })).status, 204);
  } finally {
    s.clock.advance(-(600_000 + 1000));
  }
});

test('events: an organization’s endpoint takes org.member but not account.security; a person’s the reverse', async () => {
  const org = await createOrg(s, owner);
  const refused = await s.request(`/api/orgs/${org.slug}/webhooks`, { method: 'POST', bearer: owner.token, body: { url: `${receiver.url}/x`, events: ['account.security'] } });
  assertProblem(refused, 400, 'BAD_REQUEST');
  assert.match(refused.json.detail, /org\.member/);
  assert.doesNotMatch(refused.json.detail, /account\.security/);
  const mine = await s.request('/api/webhooks', { method: 'POST', bearer: owner.token, body: { url: `${receiver.url}/x`, events: ['org.member'] } });
  assertProblem(mine, 400, 'BAD_REQUEST');
  assert.doesNotMatch(mine.json.detail, /org\.member/);
});

test('deliveries: org.member and the organization tunnels’ events, signed per Standard Webhooks', async () => {
  const org = await createOrg(s, owner);
  const w = await endpoint(org, owner, ['org.member', 'tunnel.created']);
  const personal = (await s.request('/api/webhooks', { method: 'POST', bearer: owner.token, body: { url: `${receiver.url}/org-personal-${++n}`, events: ['tunnel.created'] } })).json;
  const member = await signedIn(s, { verified: true });
  await addMember(s, org, member, 'member');
  assert.equal((await s.request(`/api/orgs/${org.slug}/members/${member.id}`, { method: 'PATCH', bearer: owner.token, body: { role: 'admin' } })).status, 200);
  const t = await s.request(`/api/orgs/${org.slug}/tunnels`, { method: 'POST', bearer: member.token, body: { subdomain: uniqueSubdomain('wh') } });
  assert.equal(t.status, 201, t.text);
  assert.equal((await s.request(`/api/orgs/${org.slug}/members/${member.id}`, { method: 'DELETE', bearer: member.token })).status, 204);
  await receiver.waitFor(() => at(w.path, 'org.member').length === 2 && at(w.path, 'tunnel.created').length === 1);
  const [changed, left] = at(w.path, 'org.member').map((r) => verified(w.secret, r));
  assert.deepEqual(changed!.data, { action: 'role_changed', org: { id: org.id, slug: org.slug }, member: { account_id: member.id, email: member.email, role: 'admin' } });
  assert.deepEqual(left!.data, { action: 'left', org: { id: org.id, slug: org.slug }, member: { account_id: member.id, email: member.email, role: null } });
  const tunnel = verified(w.secret, at(w.path, 'tunnel.created')[0]!);
  assert.equal((tunnel.data.tunnel as { id: string }).id, t.json.id);
  assert.deepEqual((tunnel.data.tunnel as { owner: unknown }).owner, { type: 'org', slug: org.slug });
  // The owner's personal endpoint hears nothing of the organization's tunnels.
  await new Promise((r) => setTimeout(r, 300));
  assert.deepEqual(at(new URL(personal.url).pathname), []);
});

test('GraphQL: Organization.webhooks and webhook(id) with deliveries, and the mutations', async () => {
  const org = await createOrg(s, owner);
  const created = await gql(
    s,
    'mutation ($slug: String!, $url: String!) { createOrganizationWebhook(slug: $slug, url: $url, events: ["tunnel.created"]) { secret webhook { id events } } }',
    { slug: org.slug, url: `${receiver.url}/org-graph` },
    { bearer: owner.token },
  );
  assert.equal(created.json.errors, undefined, created.text);
  const id = created.json.data.createOrganizationWebhook.webhook.id;
  const updated = await gql(s, 'mutation ($slug: String!, $id: ID!) { updateOrganizationWebhook(slug: $slug, id: $id, description: "g") { description } }', { slug: org.slug, id }, { bearer: owner.token });
  assert.equal(updated.json.data?.updateOrganizationWebhook.description, 'g', updated.text);
  const sent = await gql(s, 'mutation ($slug: String!, $id: ID!) { sendOrganizationWebhookTest(slug: $slug, id: $id) }', { slug: org.slug, id }, { bearer: owner.token });
  assert.match(sent.json.data?.sendOrganizationWebhookTest ?? '', /^msg_/, sent.text);
  await receiver.waitFor(() => at('/org-graph', 'webhook.test').length === 1);
  let nodes: { id: string; description: string; deliveries: { type: string }[] }[] = [];
  for (let i = 0; i < 100 && (nodes[0]?.deliveries.length ?? 0) === 0; i++) {
    const g = await gql(s, 'query ($slug: String!) { organization(slug: $slug) { webhooks { edges { node { id description deliveries(first: 5) { type } } } } } }', { slug: org.slug }, { bearer: owner.token });
    assert.equal(g.json.errors, undefined, g.text);
    nodes = g.json.data.organization.webhooks.edges.map((e: { node: unknown }) => e.node);
    if ((nodes[0]?.deliveries.length ?? 0) === 0) await new Promise((r) => setTimeout(r, 50));
  }
  assert.deepEqual(nodes, [{ id, description: 'g', deliveries: [{ type: 'webhook.test' }] }]);
  const one = await gql(s, 'query ($slug: String!, $id: ID!) { organization(slug: $slug) { webhook(id: $id) { id } } }', { slug: org.slug, id }, { bearer: owner.token });
  assert.equal(one.json.data?.organization.webhook.id, id, one.text);
  const rotated = await gql(s, 'mutation ($slug: String!, $id: ID!) { rotateOrganizationWebhookSecret(slug: $slug, id: $id) }', { slug: org.slug, id }, { bearer: owner.token });
  assert.match(rotated.json.data?.rotateOrganizationWebhookSecret ?? '', /^whsec_/, rotated.text);
  const member = await signedIn(s, { verified: true });
  await addMember(s, org, member, 'member');
  assert.equal(gqlCode(await gql(s, 'query ($slug: String!) { organization(slug: $slug) { webhooks { edges { node { id } } } } }', { slug: org.slug }, { bearer: member.token })), 'FORBIDDEN');
  const deleted = await gql(s, 'mutation ($slug: String!, $id: ID!) { deleteOrganizationWebhook(slug: $slug, id: $id) }', { slug: org.slug, id }, { bearer: owner.token });
  assert.equal(deleted.json.data?.deleteOrganizationWebhook, true, deleted.text);
  assert.deepEqual((await auditTypes(s, org, owner)).filter((t) => t === 'webhook_changed').length, 4);
});

test('an organization’s endpoint failing for five days: the notice goes to its owners and admins, never to an empty address', async () => {
  const org = await createOrg(s, owner);
  const admin = await signedIn(s, { verified: true });
  const member = await signedIn(s, { verified: true });
  await addMember(s, org, admin, 'admin');
  await addMember(s, org, member, 'member');
  const w = await endpoint(org, owner, ['tunnel.created']);
  receiver.answer = (r) => (r.path === w.path ? { status: 500 } : { status: 200 });
  const moved = 5 * DAY_MS + 60_000;
  try {
    await s.request(`/api/orgs/${org.slug}/tunnels`, { method: 'POST', bearer: owner.token, body: { subdomain: uniqueSubdomain('fail') } });
    // The attempt is recorded (its failure dated) before the clock moves: the receiver hearing
    // it is not enough, the server writes the failure after the answer.
    let failed = false;
    for (let i = 0; i < 200 && !failed; i++) {
      const log = (await s.request(`/api/orgs/${org.slug}/webhooks/${w.id}/deliveries?limit=5`, { bearer: owner.token })).json.deliveries as { status_code: number | null }[];
      failed = log.some((d) => d.status_code === 500);
      if (!failed) await new Promise((r) => setTimeout(r, 50));
    }
    assert.ok(failed, 'the failed attempt is recorded');
    s.clock.advance(moved);
    await s.request(`/api/orgs/${org.slug}/webhooks/${w.id}/test`, { method: 'POST', bearer: owner.token });
    const toOwner = await s.smtp.waitFor(owner.email, 'webhook-disabled');
    const toAdmin = await s.smtp.waitFor(admin.email, 'webhook-disabled');
    for (const mail of [toOwner, toAdmin]) {
      assert.match(mail.subject, new RegExp(`organization ${org.slug}`));
      assert.ok(!mail.raw.includes(w.path), 'the path is not in the mail');
    }
    assert.deepEqual(s.smtp.to(member.email, 'webhook-disabled'), []);
    assert.equal(await s.deps.db.outboxEmail.count({ where: { toAddress: '' } }), 0);
    assert.equal((await s.request(`/api/orgs/${org.slug}/webhooks/${w.id}`, { bearer: owner.token })).json.disabled_reason, 'failing');
  } finally {
    receiver.answer = { status: 200 };
    s.clock.advance(-moved);
  }
});

test('the outbox never queues an email to an address without an @', async () => {
  const email = webhookDisabled(s.deps.mailContext, { host: 'example.com', at: new Date() });
  const refused = ['', 'org:123', '@example.com', 'someone@'];
  for (const to of refused) {
    assert.equal(await s.deps.db.$transaction((tx) => s.deps.outbox.enqueue(tx, to, email, null)), false, JSON.stringify(to));
  }
  assert.equal(await s.deps.db.outboxEmail.count({ where: { toAddress: { in: refused } } }), 0);
});
