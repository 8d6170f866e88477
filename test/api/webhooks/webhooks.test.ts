// Webhooks (API.md section 15): endpoints (secret once, at most 10, recent sign-in to add or
// change), events written with their changes and delivered signed per Standard Webhooks (checked
// with the official `standardwebhooks` verifier), retries on the schedule, manual retry, secret
// rotation (both sign for 24 hours), test events, disabling after five days of failures with its
// notice, and requests that never wait for a receiver.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { fromIp, randomIp, signedIn, login, PASSWORD, type SignedIn } from '../../support/accounts.js';
import { assertProblem } from '../../support/problem.js';
import { useServer } from '../../support/server.js';
import { createTunnel, patchTunnel, pinTools, INTERNAL_TOKEN } from '../../support/tunnels.js';
import { WebhookReceiver, type Received } from '../../support/webhook-receiver.js';
import { gql } from '../../support/graphql.js';
import type { Reply } from '../../support/http.js';

/** Arbitrary JSON, as the suite's replies type it. */
type Json = Reply['json'];

const receiver = await WebhookReceiver.start();
after(() => receiver.close());
const s = useServer({ env: { WEBHOOK_ALLOW_PRIVATE: 'true', INTERNAL_API_TOKEN: INTERNAL_TOKEN, TRUST_PROXY: 'true' } });
const DAY_MS = 24 * 3600_000;
const ALL = ['tunnel.created', 'tunnel.updated', 'tunnel.deleted', 'tunnel.tools_changed', 'card.published', 'card.unpublished', 'account.security'];

let n = 0;
async function account(): Promise<SignedIn & { headers: Record<string, string> }> {
  const headers = fromIp(randomIp());
  return { ...(await signedIn(s, { headers, verified: true })), headers };
}

/** A receiver path of its own per endpoint, so tests tell their deliveries apart. */
async function endpoint(a: SignedIn, events = ALL, extra: Record<string, unknown> = {}): Promise<{ id: string; secret: string; path: string }> {
  const path = `/hook/${++n}`;
  const r = await s.request('/api/webhooks', { method: 'POST', bearer: a.token, body: { url: `${receiver.url}${path}`, events, ...extra } });
  assert.equal(r.status, 201, r.text);
  return { id: r.json.id, secret: r.json.secret, path };
}

const at = (path: string, type?: string) => receiver.received.filter((r) => r.path === path && (!type || (JSON.parse(r.body) as { type: string }).type === type));
const bodyOf = (r: Received) => JSON.parse(r.body) as { type: string; timestamp: string; data: Json };
const verify = (secret: string, r: Received) =>
  new Webhook(secret).verify(r.body, {
    'webhook-id': String(r.headers['webhook-id']),
    'webhook-timestamp': String(r.headers['webhook-timestamp']),
    'webhook-signature': String(r.headers['webhook-signature']),
  });

async function deliveries(a: SignedIn, id: string, query = ''): Promise<Json[]> {
  const r = await s.request(`/api/webhooks/${id}/deliveries${query}`, { bearer: a.token });
  assert.equal(r.status, 200, r.text);
  return r.json.deliveries;
}

async function waitForAttempts(a: SignedIn, id: string, count: number): Promise<Json[]> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const list = await deliveries(a, id);
    if (list.length >= count) return list;
    if (Date.now() > deadline) throw new Error(`${count} attempts not logged: ${JSON.stringify(list)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('create: 201 with a whsec_ secret once; listed without it; stored sealed, never readable', async () => {
  const a = await account();
  const r = await s.request('/api/webhooks', { method: 'POST', bearer: a.token, body: { url: `${receiver.url}/x`, events: ['tunnel.created', 'tunnel.created'], description: ' deploys ' } });
  assert.equal(r.status, 201, r.text);
  assert.deepEqual(Object.keys(r.json).sort(), ['created_at', 'description', 'disabled_reason', 'enabled', 'events', 'id', 'secret', 'url']);
  assert.equal(r.json.enabled, true);
  assert.equal(r.json.description, 'deploys');
  assert.deepEqual(r.json.events, ['tunnel.created']);
  assert.match(r.json.secret, /^whsec_[A-Za-z0-9+/]+=*$/);
  assert.ok(Buffer.from(r.json.secret.slice(6), 'base64').length >= 24);
  const list = await s.request('/api/webhooks', { bearer: a.token });
  assert.equal(list.status, 200);
  assert.equal(list.json.webhooks.length, 1);
  assert.equal('secret' in list.json.webhooks[0], false);
  const rows = await s.deps.db.webhook.findMany({ where: { accountId: a.id } });
  assert.ok(!JSON.stringify(rows).includes(r.json.secret.slice(6)), 'the secret is not readable in the row');
  assert.equal(s.deps.cipher.open(rows[0]!.secret), r.json.secret, 'sealed with ENCRYPTION_KEY');
  const activity = await s.request('/api/account/activity', { bearer: a.token });
  assert.equal(activity.json.events[0].type, 'webhook_created');
});

test('create: 400 for each broken rule, 409 past 10, 401 signed out, 403 for a service token', async () => {
  const a = await account();
  for (const body of [
    { events: ['tunnel.created'] },
    { url: 'ftp://example.com/x', events: ['tunnel.created'] },
    { url: 'not a url', events: ['tunnel.created'] },
    { url: `${receiver.url}/x#frag`, events: ['tunnel.created'] },
    { url: `${receiver.url}/x`, events: [] },
    { url: `${receiver.url}/x`, events: ['tunnel.exploded'] },
    { url: `${receiver.url}/x`, events: ['webhook.test'] },
    { url: `${receiver.url}/x`, events: 'tunnel.created' },
    { url: `${receiver.url}/x`, events: ['tunnel.created'], description: 'x'.repeat(501) },
  ]) {
    assertProblem(await s.request('/api/webhooks', { method: 'POST', bearer: a.token, body }), 400, 'BAD_REQUEST');
  }
  for (let i = 0; i < 10; i++) await endpoint(a, ['tunnel.created']);
  assertProblem(await s.request('/api/webhooks', { method: 'POST', bearer: a.token, body: { url: `${receiver.url}/x`, events: ['tunnel.created'] } }), 409, 'CONFLICT');
  assert.equal((await s.request('/api/webhooks')).status, 401);
  const token = await s.request('/api/tokens', { method: 'POST', bearer: a.token, body: { name: 'ci', scopes: ['tunnels:read', 'tunnels:write', 'account:read'] } });
  assertProblem(await s.request('/api/webhooks', { bearer: token.json.token }), 403, 'FORBIDDEN');
});

test('adding, re-pointing and rotating need a recent sign-in; renaming, turning off and deleting do not', async () => {
  const a = await account();
  const w = await endpoint(a, ['tunnel.created']);
  s.clock.advance(600_000 + 1000);
  try {
    assertProblem(await s.request('/api/webhooks', { method: 'POST', bearer: a.token, body: { url: `${receiver.url}/x`, events: ['tunnel.created'] } }), 403, 'REAUTH_REQUIRED');
    assertProblem(await s.request(`/api/webhooks/${w.id}`, { method: 'PATCH', bearer: a.token, body: { url: `${receiver.url}/y` } }), 403, 'REAUTH_REQUIRED');
    assertProblem(await s.request(`/api/webhooks/${w.id}`, { method: 'PATCH', bearer: a.token, body: { events: ALL } }), 403, 'REAUTH_REQUIRED');
    assertProblem(await s.request(`/api/webhooks/${w.id}/rotate-secret`, { method: 'POST', bearer: a.token }), 403, 'REAUTH_REQUIRED');
    const renamed = await s.request(`/api/webhooks/${w.id}`, { method: 'PATCH', bearer: a.token, body: { description: 'ops', enabled: false } });
    assert.equal(renamed.status, 200, renamed.text);
    assert.equal(renamed.json.enabled, false);
    assertProblem(await s.request(`/api/webhooks/${w.id}`, { method: 'PATCH', bearer: a.token, body: { enabled: true } }), 403, 'REAUTH_REQUIRED');
    const reauth = await s.request('/api/account/reauth', { method: 'POST', bearer: a.token, body: { password: PASSWORD } });
    assert.equal(reauth.status, 204, reauth.text);
    const back = await s.request(`/api/webhooks/${w.id}`, { method: 'PATCH', bearer: a.token, body: { enabled: true, url: `${receiver.url}/z` } });
    assert.equal(back.status, 200, back.text);
    assert.equal(back.json.url, `${receiver.url}/z`);
    s.clock.advance(600_000 + 1000);
    assert.equal((await s.request(`/api/webhooks/${w.id}`, { method: 'DELETE', bearer: a.token })).status, 204);
  } finally {
    s.clock.advance(-2 * (600_000 + 1000));
  }
});

test("another account's endpoint, and an unknown one, answer 404 on every path", async () => {
  const a = await account();
  const b = await account();
  const w = await endpoint(a, ['tunnel.created']);
  for (const id of [w.id, '00000000-0000-4000-8000-000000000000', 'nope']) {
    assertProblem(await s.request(`/api/webhooks/${id}`, { method: 'PATCH', bearer: b.token, body: { description: 'x' } }), 404, 'NOT_FOUND');
    assertProblem(await s.request(`/api/webhooks/${id}`, { method: 'DELETE', bearer: b.token }), 404, 'NOT_FOUND');
    assertProblem(await s.request(`/api/webhooks/${id}/rotate-secret`, { method: 'POST', bearer: b.token }), 404, 'NOT_FOUND');
    assertProblem(await s.request(`/api/webhooks/${id}/test`, { method: 'POST', bearer: b.token }), 404, 'NOT_FOUND');
    assertProblem(await s.request(`/api/webhooks/${id}/deliveries`, { bearer: b.token }), 404, 'NOT_FOUND');
    assertProblem(await s.request(`/api/webhooks/${id}/deliveries/00000000-0000-4000-8000-000000000000/retry`, { method: 'POST', bearer: b.token }), 404, 'NOT_FOUND');
  }
  assertProblem(await s.request(`/api/webhooks/${w.id}/deliveries?limit=0`, { bearer: a.token }), 400, 'BAD_REQUEST');
  assertProblem(await s.request(`/api/webhooks/${w.id}/deliveries?limit=101`, { bearer: a.token }), 400, 'BAD_REQUEST');
  assertProblem(await s.request(`/api/webhooks/${w.id}/deliveries/00000000-0000-4000-8000-000000000000/retry`, { method: 'POST', bearer: a.token }), 404, 'NOT_FOUND');
});

test('tunnel and card events arrive signed, verified by the standardwebhooks package, with the same id on every retry', async () => {
  const a = await account();
  const w = await endpoint(a, ['tunnel.created', 'tunnel.updated', 'tunnel.deleted', 'tunnel.tools_changed', 'card.published', 'card.unpublished']);
  const t = await createTunnel(s, a);
  await receiver.waitFor(() => at(w.path, 'tunnel.created').length === 1);
  const created = at(w.path, 'tunnel.created')[0]!;
  assert.equal(created.headers['content-type'], 'application/json');
  assert.match(String(created.headers['webhook-id']), /^msg_[0-9a-f]{32}$/);
  assert.ok(Math.abs(Number(created.headers['webhook-timestamp']) - Date.now() / 1000) < 10);
  assert.deepEqual(verify(w.secret, created), JSON.parse(created.body), 'the official verifier accepts it');
  assert.throws(() => verify(`whsec_${Buffer.alloc(32, 1).toString('base64')}`, created), /signature/i, 'another secret does not verify');
  const body = bodyOf(created);
  assert.deepEqual(Object.keys(body).sort(), ['data', 'timestamp', 'type']);
  assert.equal(body.data.tunnel.id, t.id);
  assert.equal(body.data.tunnel.host, t.host);
  assert.equal(body.data.tunnel.discoverable, false);

  assert.equal((await patchTunnel(s, a, t.id, { discoverable: true })).status, 200);
  // Two deliveries, sent concurrently: either may arrive first.
  await receiver.waitFor(() => at(w.path, 'card.published').length === 1 && at(w.path, 'tunnel.updated').length === 1);
  const updated = bodyOf(at(w.path, 'tunnel.updated')[0]!);
  assert.deepEqual(updated.data.changed, ['discoverable']);
  assert.equal(updated.data.tunnel.discoverable, true);
  const published = bodyOf(at(w.path, 'card.published')[0]!);
  assert.equal(published.data.tunnel_id, t.id);
  assert.deepEqual(published.data.card_urls, [`https://${t.host}/.well-known/mcp/server-card.json`]);

  assert.equal((await pinTools(s, t.id, { tools: [{ name: 'search' }, { name: 'fetch' }] })).status, 204);
  await receiver.waitFor(() => at(w.path, 'tunnel.tools_changed').length === 1);
  const tools = bodyOf(at(w.path, 'tunnel.tools_changed')[0]!);
  assert.deepEqual(tools.data.pinned_tools, ['search', 'fetch']);
  assert.deepEqual(tools.data.previous_tools, []);
  // The same list again changes nothing and sends nothing.
  assert.equal((await pinTools(s, t.id, { tools: [{ name: 'search' }, { name: 'fetch' }] })).status, 204);

  assert.equal((await s.request(`/api/tunnels/${t.id}`, { method: 'DELETE', bearer: a.token })).status, 204);
  await receiver.waitFor(() => at(w.path, 'tunnel.deleted').length === 1 && at(w.path, 'card.unpublished').length === 1);
  assert.equal(bodyOf(at(w.path, 'tunnel.deleted')[0]!).data.tunnel.id, t.id);
  assert.equal(at(w.path, 'tunnel.tools_changed').length, 1);
  const ids = at(w.path).map((r) => r.headers['webhook-id']);
  assert.equal(new Set(ids).size, ids.length, 'one id per event');
  const log = await waitForAttempts(a, w.id, ids.length);
  assert.ok(log.every((d) => d.status_code === 200 && d.error === null && d.attempt === 1 && d.next_attempt_at === null));
  assert.deepEqual(Object.keys(log[0]).sort(), ['at', 'attempt', 'delivery_id', 'duration_ms', 'error', 'event_id', 'id', 'next_attempt_at', 'status_code', 'type']);
  // Newest first: the deletion's two events (one transaction, attempted side by side) lead.
  assert.deepEqual(log.slice(0, 2).map((d) => d.type).sort(), ['card.unpublished', 'tunnel.deleted']);
  assert.equal(log.at(-1).type, 'tunnel.created');
  assert.ok(log.every((d, i) => i === 0 || Date.parse(log[i - 1].at) >= Date.parse(d.at)));
});

test('account.security: each activity event, with its type, time and masked network, never a credential', async () => {
  const a = await account();
  const w = await endpoint(a, ['account.security']);
  const again = await login(s, a, a.headers);
  const changed = await s.request('/auth/change-password', { method: 'POST', bearer: again.token, body: { current_password: PASSWORD, new_password: 'another long passphrase 42' } });
  assert.equal(changed.status, 204, changed.text);
  await receiver.waitFor(() => at(w.path).length >= 2);
  const events = at(w.path).map(bodyOf);
  const signIn = events.find((e) => e.data.type === 'sign_in')!;
  assert.ok(signIn, JSON.stringify(events));
  assert.equal(signIn.type, 'account.security');
  assert.match(signIn.data.ip, /x$/, 'masked');
  assert.equal(signIn.data.detail.method, 'password');
  assert.match(signIn.data.at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  assert.ok(events.some((e) => e.data.type === 'password_changed'));
  for (const e of at(w.path)) {
    assert.ok(!e.body.includes(PASSWORD) && !e.body.includes('another long passphrase') && !e.body.includes(again.token), 'no credential');
  }
  // Not subscribed to tunnels: creating one sends nothing.
  const before = at(w.path).length;
  await createTunnel(s, again);
  await new Promise((r) => setTimeout(r, 500));
  assert.equal(at(w.path).length, before);
});

test('a test event goes to that endpoint whatever it subscribes to; GraphQL lists it under me.webhooks', async () => {
  const a = await account();
  const w = await endpoint(a, ['card.published']);
  const r = await s.request(`/api/webhooks/${w.id}/test`, { method: 'POST', bearer: a.token });
  assert.equal(r.status, 202, r.text);
  await receiver.waitFor(() => at(w.path, 'webhook.test').length === 1);
  assert.equal(at(w.path, 'webhook.test')[0]!.headers['webhook-id'], r.json.event_id);
  await waitForAttempts(a, w.id, 1);
  const g = await gql(s, '{ me { webhooks { id events deliveries(first: 5) { type attempt statusCode } } } }', {}, { bearer: a.token });
  assert.deepEqual(g.json.data.me.webhooks, [{ id: w.id, events: ['card.published'], deliveries: [{ type: 'webhook.test', attempt: 1, statusCode: 200 }] }]);
});

test('test events and manual retries are limited per account: the 21st in 15 minutes is 429, counted before the work', async () => {
  const a = await account();
  const w = await endpoint(a, ['card.published']);
  for (let i = 0; i < 19; i++) assert.equal((await s.request(`/api/webhooks/${w.id}/test`, { method: 'POST', bearer: a.token })).status, 202);
  // A retry of an unknown delivery is 404, and still counts (the 20th).
  const unknown = await s.request(`/api/webhooks/${w.id}/deliveries/00000000-0000-4000-8000-000000000000/retry`, { method: 'POST', bearer: a.token });
  assert.equal(unknown.status, 404);
  const past = await s.request(`/api/webhooks/${w.id}/test`, { method: 'POST', bearer: a.token });
  assertProblem(past, 429, 'RATE_LIMITED');
  assert.ok(Number(past.headers['retry-after']) > 0);
  const retry = await s.request(`/api/webhooks/${w.id}/deliveries/00000000-0000-4000-8000-000000000000/retry`, { method: 'POST', bearer: a.token });
  assertProblem(retry, 429, 'RATE_LIMITED');
  // Another account has its own budget.
  const b = await account();
  const wb = await endpoint(b, ['card.published']);
  assert.equal((await s.request(`/api/webhooks/${wb.id}/test`, { method: 'POST', bearer: b.token })).status, 202);
  await receiver.waitFor(() => at(w.path, 'webhook.test').length === 19);
});

test('a failing endpoint is retried on the schedule with the same webhook-id; a manual retry sends a finished delivery again', async () => {
  const a = await account();
  const w = await endpoint(a, ['tunnel.created']);
  receiver.answer = (r) => (r.path === w.path ? { status: 503 } : { status: 200 });
  try {
    await createTunnel(s, a);
    const [first] = await waitForAttempts(a, w.id, 1);
    assert.equal(first.status_code, 503);
    assert.equal(first.error, 'The endpoint answered with status 503 (Service Unavailable); only a 2xx counts as delivered.');
    assert.equal(Date.parse(first.next_attempt_at) - Date.parse(first.at), 5000, 'the first retry comes 5 s later');
    s.clock.advance(5000);
    const [second] = await waitForAttempts(a, w.id, 2);
    assert.equal(second.attempt, 2);
    assert.equal(Date.parse(second.next_attempt_at) - Date.parse(second.at), 300_000, 'then 5 minutes');
    receiver.answer = { status: 204 };
    s.clock.advance(300_000);
    const [third] = await waitForAttempts(a, w.id, 3);
    assert.equal(third.status_code, 204);
    assert.equal(third.next_attempt_at, null);
    const sent = at(w.path);
    assert.equal(sent.length, 3);
    assert.equal(new Set(sent.map((r) => r.headers['webhook-id'])).size, 1, 'the same id on every attempt');
    // A manual retry of the finished delivery: one more attempt, the same event.
    const retry = await s.request(`/api/webhooks/${w.id}/deliveries/${third.id}/retry`, { method: 'POST', bearer: a.token });
    assert.equal(retry.status, 202, retry.text);
    const [fourth] = await waitForAttempts(a, w.id, 4);
    assert.equal(fourth.attempt, 4);
    assert.equal(fourth.event_id, first.event_id);
  } finally {
    receiver.answer = { status: 200 };
    s.clock.advance(-305_000);
  }
});

test('the delivery log says why an attempt failed in words: refused connection, TLS, older attempts too', async () => {
  const a = await account();
  const create = (url: string) => s.request('/api/webhooks', { method: 'POST', bearer: a.token, body: { url, events: ['tunnel.created'] } });
  const refused = await create('http://127.0.0.1:1/hook');
  assert.equal(refused.status, 201, refused.text);
  // An https URL on the receiver's plain-http port: the TLS handshake fails.
  const plain = await create(`${receiver.url.replace(/^http:/, 'https:')}/tls`);
  assert.equal(plain.status, 201, plain.text);
  await createTunnel(s, a);
  const [first] = await waitForAttempts(a, refused.json.id, 1);
  assert.equal(first.status_code, null);
  assert.equal(first.error, 'Could not connect to the endpoint (connection refused).');
  const [tls] = await waitForAttempts(a, plain.json.id, 1);
  assert.equal(tls.status_code, null);
  assert.match(tls.error, /^Could not make a secure connection to the endpoint \(.+\)\.$/);
  // An attempt recorded by an earlier version kept node's message: it reads as words too, on both surfaces.
  await s.deps.db.webhookAttempt.update({ where: { id: first.id }, data: { error: 'connect ECONNREFUSED 127.0.0.1:1' } });
  assert.equal((await deliveries(a, refused.json.id))[0].error, 'Could not connect to the endpoint (connection refused).');
  const viaGraphql = await gql(s, 'query ($id: ID!) { webhookDeliveries(webhookId: $id) { error statusCode } }', { id: refused.json.id }, { bearer: a.token });
  assert.deepEqual(viaGraphql.json.data.webhookDeliveries[0], { error: 'Could not connect to the endpoint (connection refused).', statusCode: null });
});

test('rotation: both secrets sign for 24 hours, then only the new one', async () => {
  const a = await account();
  const w = await endpoint(a, ['tunnel.created']);
  const r = await s.request(`/api/webhooks/${w.id}/rotate-secret`, { method: 'POST', bearer: a.token });
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(Object.keys(r.json), ['secret']);
  assert.notEqual(r.json.secret, w.secret);
  await s.request(`/api/webhooks/${w.id}/test`, { method: 'POST', bearer: a.token });
  await receiver.waitFor(() => at(w.path).length === 1);
  const during = at(w.path)[0]!;
  assert.equal(String(during.headers['webhook-signature']).split(' ').length, 2);
  verify(r.json.secret, during);
  verify(w.secret, during);
  s.clock.advance(DAY_MS + 1000);
  try {
    await s.request(`/api/webhooks/${w.id}/test`, { method: 'POST', bearer: a.token });
    await receiver.waitFor(() => at(w.path).length === 2);
    const afterDay = at(w.path)[1]!;
    assert.equal(String(afterDay.headers['webhook-signature']).split(' ').length, 1);
    // The verifier checks the timestamp against the real clock; the signature alone is compared here.
    const expected = new Webhook(r.json.secret).sign(String(afterDay.headers['webhook-id']), new Date(Number(afterDay.headers['webhook-timestamp']) * 1000), afterDay.body);
    assert.equal(afterDay.headers['webhook-signature'], expected);
  } finally {
    s.clock.advance(-(DAY_MS + 1000));
  }
});

test('an endpoint failing for five days is disabled with the webhook-disabled notice; turned back on, what waited goes out', async () => {
  const a = await account();
  const w = await endpoint(a, ['tunnel.created']);
  receiver.answer = (r) => (r.path === w.path ? { status: 500 } : { status: 200 });
  const moved = 5 * DAY_MS + 60_000;
  try {
    await createTunnel(s, a);
    await waitForAttempts(a, w.id, 1);
    s.clock.advance(moved);
    await s.request(`/api/webhooks/${w.id}/test`, { method: 'POST', bearer: a.token });
    const mail = await s.smtp.waitFor(a.email, 'webhook-disabled');
    assert.match(mail.raw, /127\.0\.0\.1/);
    assert.ok(!mail.raw.includes(w.path), 'the path (often a secret of its own) is not in the mail');
    const list = await s.request('/api/webhooks', { bearer: a.token });
    assert.equal(list.json.webhooks[0].enabled, false);
    assert.equal(list.json.webhooks[0].disabled_reason, 'failing');
    // Disabled: nothing is attempted, even what is due.
    const attempts = (await deliveries(a, w.id)).length;
    s.clock.advance(DAY_MS);
    await new Promise((r) => setTimeout(r, 600));
    assert.equal((await deliveries(a, w.id)).length, attempts);
    receiver.answer = { status: 200 };
    const on = await s.request(`/api/webhooks/${w.id}`, { method: 'PATCH', bearer: a.token, body: { enabled: true } });
    assertProblem(on, 403, 'REAUTH_REQUIRED');
    await s.request('/api/account/reauth', { method: 'POST', bearer: a.token, body: { password: PASSWORD } });
    const on2 = await s.request(`/api/webhooks/${w.id}`, { method: 'PATCH', bearer: a.token, body: { enabled: true } });
    assert.equal(on2.status, 200, on2.text);
    assert.equal(on2.json.disabled_reason, null);
    await receiver.waitFor(() => at(w.path).filter((r) => r.at > 0).length >= attempts + 1);
    const log = await waitForAttempts(a, w.id, attempts + 1);
    assert.ok(log.some((d) => d.status_code === 200));
  } finally {
    receiver.answer = { status: 200 };
    s.clock.advance(-(moved + DAY_MS));
  }
});

test('the request that causes an event never waits for the receiver', async () => {
  const a = await account();
  const w = await endpoint(a, ['tunnel.created']);
  receiver.answer = (r) => (r.path === w.path ? 'hang' : { status: 200 });
  try {
    const started = performance.now();
    await createTunnel(s, a);
    assert.ok(performance.now() - started < 1000, 'answered without waiting');
    await receiver.waitFor(() => at(w.path).length === 1);
  } finally {
    receiver.answer = { status: 200 };
  }
});

test('deleting the account deletes its endpoints, events and deliveries', async () => {
  const a = await account();
  const w = await endpoint(a, ['tunnel.created']);
  await createTunnel(s, a);
  await waitForAttempts(a, w.id, 1);
  const del = await s.request('/api/account', { method: 'DELETE', bearer: a.token, body: { password: PASSWORD, email: a.email } });
  assert.equal(del.status, 204, del.text);
  assert.equal(await s.deps.db.webhook.count({ where: { accountId: a.id } }), 0);
  assert.equal(await s.deps.db.webhookEvent.count({ where: { accountId: a.id } }), 0);
  assert.equal(await s.deps.db.webhookDelivery.count({ where: { webhookId: w.id } }), 0);
});

test('metrics: attempts by outcome, their latency, and the queue lag gauges', async () => {
  const r = await s.request('/metrics');
  assert.equal(r.status, 200);
  assert.match(r.text, /webhook_deliveries_total\{outcome="delivered"\} [1-9]/);
  assert.match(r.text, /webhook_delivery_duration_seconds_count [1-9]/);
  assert.match(r.text, /webhook_delivery_lag_seconds \d/);
  assert.match(r.text, /webhook_oldest_undelivered_event_age_seconds \d/);
});
