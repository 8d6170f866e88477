// An organization's tunnel list is served from the instance's copy only while the organization
// row still carries the version the copy was read at (tunnels/owner-lists.ts); the database moves
// that version in the transaction of every change to the organization's tunnels. So a change made
// by any code path (here also straight in SQL, as no route does) or on another instance shows on
// the very next listing, and an unchanged list is not read again.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { signedIn, useSignedIn } from '../../support/accounts.js';
import { needs } from '../../support/backends.js';
import { gql } from '../../support/graphql.js';
import { createOrg, type Org } from '../../support/orgs.js';
import { uniqueEmail, useServer, type Server } from '../../support/server.js';
import { uniqueSubdomain } from '../../support/tunnels.js';
import { OwnerTunnelLists } from '../../../src/domain/tunnels/owner-lists.js';
import type { TunnelView } from '../../../src/domain/tunnels/tunnel-view.js';

const ZONE = 'tunnels.example.test';
const s = useServer({ env: { ZONE } });
const owner = useSignedIn(s, { email: uniqueEmail('org-lists'), verified: true });

const versionOf = async (srv: Server, id: string): Promise<bigint> =>
  (await srv.deps.db.account.findUniqueOrThrow({ where: { id }, select: { tunnelsVersion: true } })).tunnelsVersion;

async function listed(srv: Server, org: Org, token: string): Promise<{ id: string; subdomain: string; host: string; pinned_tools: string[] }[]> {
  const r = await srv.request(`/api/orgs/${org.slug}/tunnels`, { bearer: token });
  assert.equal(r.status, 200, r.text);
  return r.json.tunnels;
}

async function create(srv: Server, org: Org, token: string, subdomain = uniqueSubdomain('ls')): Promise<{ id: string; subdomain: string }> {
  const r = await srv.request(`/api/orgs/${org.slug}/tunnels`, { method: 'POST', bearer: token, body: { subdomain } });
  assert.equal(r.status, 201, r.text);
  return r.json;
}

test('every change to an organization’s tunnels moves its version, in the same transaction; a no-op does not', async () => {
  const org = await createOrg(s, owner);
  const v0 = await versionOf(s, org.id);
  const t = await create(s, org, owner.token);
  const v1 = await versionOf(s, org.id);
  assert.ok(v1 > v0, 'insert');
  await s.deps.db.$executeRaw`UPDATE tunnels SET subdomain = subdomain WHERE id = ${t.id}`;
  assert.equal(await versionOf(s, org.id), v1, 'an update that changes nothing');
  await s.deps.db.$executeRaw`UPDATE tunnels SET pinned_tools = ARRAY['search'] WHERE id = ${t.id}`;
  const v2 = await versionOf(s, org.id);
  assert.ok(v2 > v1, 'update');
  // A change rolled back moves nothing.
  await assert.rejects(
    s.deps.db.$transaction(async (tx) => {
      await tx.$executeRaw`DELETE FROM tunnels WHERE id = ${t.id}`;
      throw new Error('rolled back');
    }),
    /rolled back/,
  );
  assert.equal(await versionOf(s, org.id), v2, 'rolled back');
  // A transfer moves both owners'.
  const mine = await versionOf(s, owner.id);
  const moved = await s.request(`/api/tunnels/${t.id}/transfer`, { method: 'POST', bearer: owner.token, body: { to: 'me' } });
  assert.equal(moved.status, 200, moved.text);
  assert.ok((await versionOf(s, org.id)) > v2, 'transfer: the organization');
  assert.ok((await versionOf(s, owner.id)) > mine, 'transfer: the account');
  const v3 = await versionOf(s, org.id);
  const gone = await create(s, org, owner.token);
  await s.deps.db.$executeRaw`DELETE FROM tunnels WHERE id = ${gone.id}`;
  assert.ok((await versionOf(s, org.id)) > v3 + 1n, 'insert and delete');
});

test('the list is kept while nothing changes, and every change shows on the next listing, however it was made', async () => {
  const org = await createOrg(s, owner);
  const member = await signedIn(s, { verified: true });
  await s.deps.db.orgMember.create({ data: { orgId: org.id, accountId: member.id, role: 'member' } });
  const a = await create(s, org, owner.token, uniqueSubdomain('first'));
  const b = await create(s, org, owner.token, uniqueSubdomain('second'));
  const first = await listed(s, org, owner.token);
  assert.deepEqual(first.map((t) => t.id), [a.id, b.id]);
  // Kept: the copy for this version is there, and another member's listing is the same answer.
  const copy = s.deps.tunnelLists.get(org.id, await versionOf(s, org.id), org.slug);
  assert.deepEqual(copy?.map((t) => t.id), [a.id, b.id]);
  assert.deepEqual(await listed(s, org, member.token), first);

  // Straight in SQL (no route, no event): the next listing has it.
  await s.deps.db.$executeRaw`UPDATE tunnels SET pinned_tools = ARRAY['search', 'fetch'] WHERE id = ${a.id}`;
  assert.deepEqual((await listed(s, org, owner.token))[0]!.pinned_tools, ['search', 'fetch']);
  await s.deps.db.$executeRaw`DELETE FROM tunnels WHERE id = ${b.id}`;
  assert.deepEqual((await listed(s, org, owner.token)).map((t) => t.id), [a.id]);

  // Through the routes: create, change, transfer out.
  const c = await create(s, org, member.token);
  assert.deepEqual((await listed(s, org, owner.token)).map((t) => t.id), [a.id, c.id]);
  const renamed = uniqueSubdomain('renamed');
  assert.equal((await s.request(`/api/tunnels/${c.id}`, { method: 'PATCH', bearer: member.token, body: { subdomain: renamed } })).status, 200);
  assert.equal((await listed(s, org, owner.token))[1]!.subdomain, renamed);
  assert.equal((await s.request(`/api/tunnels/${a.id}/transfer`, { method: 'POST', bearer: owner.token, body: { to: 'me' } })).status, 200);
  assert.deepEqual((await listed(s, org, owner.token)).map((t) => t.id), [c.id]);

  // The organization's slug renamed: every host follows (the copy was made with the old slug).
  const slug = `${org.slug}-x`;
  assert.equal((await s.request(`/api/orgs/${org.slug}`, { method: 'PATCH', bearer: owner.token, body: { slug } })).status, 200);
  const after = await listed(s, { ...org, slug }, owner.token);
  assert.equal(after[0]!.host, `${renamed}--${slug}.${ZONE}`);

  // GraphQL answers from the same copy, with the same tunnels.
  const g = await gql(s, 'query ($slug: String!) { organization(slug: $slug) { tunnels { edges { node { id host } } } } }', { slug }, { bearer: member.token });
  assert.deepEqual(g.json.data?.organization.tunnels.edges, [{ node: { id: c.id, host: after[0]!.host } }], g.text);
});

describe('two instances on one PostgreSQL', () => {
  const shared = needs(['DATABASE_URL'], 'two instances sharing a database');
  const other = useServer(() => ({ smtp: s.smtp, env: { ZONE } }), shared);

  test('a change made through one instance shows on the other’s next listing', shared, async () => {
    const org = await createOrg(s, owner);
    const a = await create(s, org, owner.token);
    // Both instances hold a copy.
    for (const srv of [s, other]) assert.deepEqual((await listed(srv, org, owner.token)).map((t) => t.id), [a.id]);
    const b = await create(other, org, owner.token);
    assert.deepEqual((await listed(s, org, owner.token)).map((t) => t.id), [a.id, b.id]);
    assert.equal((await other.request(`/api/tunnels/${a.id}`, { method: 'DELETE', bearer: owner.token })).status, 204);
    assert.deepEqual((await listed(s, org, owner.token)).map((t) => t.id), [b.id]);
  });
});

describe('OwnerTunnelLists', () => {
  const views = (n: number, prefix: string): TunnelView[] =>
    Array.from({ length: n }, (_, i) => ({
      id: `${prefix}${i}`,
      subdomain: `t${i}`,
      host: `t${i}--o.z`,
      url: `https://t${i}--o.z/mcp`,
      customDomain: null,
      discoverable: false,
      pinnedTools: [],
      access: 'public',
      allowedEmails: [],
      createdAt: new Date(0),
      owner: { type: 'org', slug: 'o' },
    }));

  test('a copy answers only its version and slug; an older read never replaces a newer one', () => {
    const lists = new OwnerTunnelLists(100);
    lists.set('org1', 5n, 'o', views(2, 'v5-'));
    assert.equal(lists.get('org1', 5n, 'o')?.[0]!.id, 'v5-0');
    lists.set('org1', 4n, 'o', views(2, 'v4-'));
    assert.equal(lists.get('org1', 5n, 'o')?.[0]!.id, 'v5-0');
    assert.equal(lists.get('org1', 5n, 'renamed'), undefined);
    assert.equal(lists.get('org1', 5n, 'o'), undefined, 'a mismatch drops the copy');
    assert.equal(lists.size, 0);
    // Frozen: a request cannot change what the next one is served.
    const kept = lists.set('org1', 6n, 'o', views(1, 'v6-'));
    assert.throws(() => {
      (kept[0]!.pinnedTools as string[]).push('x');
    }, TypeError);
  });

  test('at most maxTunnels in all: the least recently used lists go first; a list over the bound is not kept', () => {
    const lists = new OwnerTunnelLists(10);
    lists.set('a', 1n, 'a', views(4, 'a'));
    lists.set('b', 1n, 'b', views(4, 'b'));
    assert.ok(lists.get('a', 1n, 'a'));
    lists.set('c', 1n, 'c', views(4, 'c'));
    assert.equal(lists.size, 8);
    assert.equal(lists.get('b', 1n, 'b'), undefined, 'b was the least recently used');
    assert.ok(lists.get('a', 1n, 'a') && lists.get('c', 1n, 'c'));
    assert.equal(lists.set('big', 1n, 'big', views(11, 'x')).length, 11);
    assert.equal(lists.get('big', 1n, 'big'), undefined);
    assert.equal(lists.size, 8);
  });
});
