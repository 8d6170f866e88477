// Tunnel host takeover: a slug or custom domain freed by a rename or a deletion is held for 30
// days, so no other account can claim it (an MCP client pinned to `tool--alice.ZONE` never
// reaches a stranger); the account that freed it may take it back. And an account holds at most
// 100 tunnels, so every list stays bounded.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { PASSWORD, signedIn } from '../../support/accounts.js';
import { assertProblem } from '../../support/problem.js';
import { uniqueEmail, useServer } from '../../support/server.js';
import { createTunnel, customDomain, patchTunnel, uniqueSubdomain } from '../../support/tunnels.js';

const s = useServer();
const DAY = 24 * 3600_000;
const rename = (token: string, slug: string) => s.request('/api/account/slug', { method: 'PATCH', bearer: token, body: { slug } });
const slugOf = () => `held-${randomBytes(4).toString('hex')}`;
/** A fresh session: moving the clock a month ahead ends the old ones. */
const relogin = async (owner: { email: string }) =>
  (await s.request('/auth/login', { method: 'POST', body: { email: owner.email, password: PASSWORD } })).json.token as string;

test('a slug freed by a rename cannot be claimed by another account for 30 days; its owner can take it back', async () => {
  const alice = await signedIn(s, { email: uniqueEmail('alice') });
  const mallory = await signedIn(s, { email: uniqueEmail('mallory') });
  const old = slugOf();
  assert.equal((await rename(alice.token, old)).status, 200);
  assert.equal((await rename(alice.token, slugOf())).status, 200);
  assertProblem(await rename(mallory.token, old), 409, 'CONFLICT');
  s.clock.advance(29 * DAY);
  assertProblem(await rename(mallory.token, old), 409, 'CONFLICT');
  assert.equal((await rename(alice.token, old)).status, 200, 'the owner takes it back at once');
  assert.equal((await rename(alice.token, slugOf())).status, 200);
  s.clock.advance(31 * DAY);
  assert.equal((await rename(await relogin(mallory), old)).status, 200, 'free again after 30 days');
});

test("a deleted account's slug is held: a new account with the same email gets another slug", async () => {
  const tag = randomBytes(4).toString('hex');
  const email = `gone${tag}@example.com`;
  const signup = await s.request('/auth/signup', { method: 'POST', body: { email, password: 'correct horse battery' } });
  assert.equal(signup.json.slug, `gone${tag}`);
  const login = await s.request('/auth/login', { method: 'POST', body: { email, password: 'correct horse battery' } });
  const del = await s.request('/api/account', { method: 'DELETE', bearer: login.json.token, body: { email, password: 'correct horse battery' } });
  assert.equal(del.status, 204, del.text);
  const again = await s.request('/auth/signup', { method: 'POST', body: { email, password: 'correct horse battery' } });
  assert.equal(again.status, 201);
  assert.notEqual(again.json.slug, `gone${tag}`);
  assert.ok(again.json.slug.startsWith(`gone${tag}-`), again.json.slug);
});

test('a custom domain freed by deleting its tunnel or changing it is held against other accounts', async () => {
  const alice = await signedIn(s, { email: uniqueEmail('alice.cd') });
  const mallory = await signedIn(s, { email: uniqueEmail('mallory.cd') });
  const domain = customDomain('held');
  const t = await createTunnel(s, alice, { custom_domain: domain });
  assert.equal((await s.request(`/api/tunnels/${t.id}`, { method: 'DELETE', bearer: alice.token })).status, 204);
  const stolen = await s.request('/api/tunnels', { method: 'POST', bearer: mallory.token, body: { subdomain: uniqueSubdomain(), custom_domain: domain } });
  assertProblem(stolen, 409, 'CONFLICT');
  const other = await createTunnel(s, mallory);
  assertProblem(await patchTunnel(s, mallory, other.id, { custom_domain: domain }), 409, 'CONFLICT');
  // Alice may reuse it; moving it away holds it again.
  const back = await createTunnel(s, alice, { custom_domain: domain });
  assert.equal((await patchTunnel(s, alice, back.id, { custom_domain: customDomain('next') })).status, 200);
  assertProblem(await patchTunnel(s, mallory, other.id, { custom_domain: domain }), 409, 'CONFLICT');
  s.clock.advance(31 * DAY);
  const later = { ...mallory, token: await relogin(mallory) };
  assert.equal((await patchTunnel(s, later, other.id, { custom_domain: domain })).status, 200);
});

test('an account holds at most 100 tunnels: the 101st is refused with 409, also under concurrency', async () => {
  const owner = await signedIn(s, { email: uniqueEmail('many') });
  const create = () => s.request('/api/tunnels', { method: 'POST', bearer: owner.token, body: { subdomain: uniqueSubdomain('m') } });
  for (let i = 0; i < 95; i++) assert.equal((await create()).status, 201);
  const burst = await Promise.all(Array.from({ length: 10 }, create));
  assert.deepEqual(burst.map((r) => r.status).sort(), [201, 201, 201, 201, 201, 409, 409, 409, 409, 409], burst.map((r) => r.text).join('\n'));
  assert.equal(burst.filter((r) => r.status === 201).length, 5);
  for (const r of burst.filter((x) => x.status !== 201)) assertProblem(r, 409, 'CONFLICT');
  assert.equal(await s.deps.db.tunnel.count({ where: { accountId: owner.id } }), 100);
  const list = await s.request('/api/tunnels', { bearer: owner.token });
  assert.equal(list.json.tunnels.length, 100);
});

test('a claim racing the release of the same name never takes it: delete vs create, account deletion vs rename', async () => {
  for (let round = 0; round < 6; round++) {
    const alice = await signedIn(s, { email: uniqueEmail('alice.race') });
    const mallory = await signedIn(s, { email: uniqueEmail('mallory.race') });
    const domain = customDomain('race');
    const t = await createTunnel(s, alice, { custom_domain: domain });
    // Mallory fires while Alice deletes: whatever the interleaving, the name ends held for Alice.
    const [del, ...grabs] = await Promise.all([
      s.request(`/api/tunnels/${t.id}`, { method: 'DELETE', bearer: alice.token }),
      ...Array.from({ length: 4 }, () =>
        s.request('/api/tunnels', { method: 'POST', bearer: mallory.token, body: { subdomain: uniqueSubdomain(), custom_domain: domain } }),
      ),
    ]);
    assert.equal(del!.status, 204, del!.text);
    for (const g of grabs) assertProblem(g, 409, 'CONFLICT');
    assert.equal(await s.deps.db.tunnel.count({ where: { customDomain: domain } }), 0);

    // The same for a slug freed by deleting the account while another account renames to it.
    const victim = await signedIn(s, { email: uniqueEmail('victim.race') });
    const [gone, ...renames] = await Promise.all([
      s.request('/api/account', { method: 'DELETE', bearer: victim.token, body: { email: victim.email, password: PASSWORD } }),
      ...Array.from({ length: 4 }, () => rename(mallory.token, victim.slug)),
    ]);
    assert.equal(gone!.status, 204, gone!.text);
    for (const r of renames) assertProblem(r, 409, 'CONFLICT');
    assert.equal(await s.deps.db.account.count({ where: { slug: victim.slug } }), 0);
  }
});
