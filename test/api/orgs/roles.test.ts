// Who may do what to an organization (API.md section 18), walked role × action: the decision
// table itself (membership/roles.ts, the one place that decides), then the same actions over
// REST and GraphQL for an owner, an admin, a member, a member's personal token and a
// non-member: allowed, 403 for a member without the role or scope, 404 for a non-member.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { signedIn, useSignedIn, type SignedIn } from '../../support/accounts.js';
import { gql, gqlCode } from '../../support/graphql.js';
import { uniqueEmail, useServer } from '../../support/server.js';
import { uniqueSubdomain } from '../../support/tunnels.js';
import { decide, ORG_ACTIONS, ORG_ROLES, type OrgAction, type OrgRole } from '../../../src/domain/membership/roles.js';

const ALLOWED: Record<OrgRole, OrgAction[]> = {
  owner: [...ORG_ACTIONS],
  admin: ['org.read', 'org.rename', 'members.read', 'members.manage', 'invitations.manage', 'tunnels.read', 'tunnels.connect', 'tunnels.create', 'tunnels.write', 'tunnels.access', 'tokens.manage', 'webhooks.manage', 'audit.read'],
  member: ['org.read', 'members.read', 'tunnels.read', 'tunnels.connect', 'tunnels.create', 'tunnels.write'],
};

test('the decision table: each role allows exactly its actions; a token adds its scopes on top', () => {
  for (const role of ORG_ROLES) {
    for (const action of ORG_ACTIONS) {
      const expected = ALLOWED[role].includes(action) ? 'allowed' : 'forbidden';
      assert.equal(decide({ kind: 'member', role, scopes: null }, action), expected, `${role} ${action}`);
    }
  }
  // A member's personal token: its role, within its scopes, and never people, tokens or webhooks.
  const read = { kind: 'member' as const, role: 'owner' as const, scopes: ['tunnels:read'] };
  assert.deepEqual(ORG_ACTIONS.filter((a) => decide(read, a) === 'allowed'), ['org.read', 'tunnels.read']);
  const write = { kind: 'member' as const, role: 'member' as const, scopes: ['tunnels:write'] };
  assert.deepEqual(ORG_ACTIONS.filter((a) => decide(write, a) === 'allowed'), ['org.read', 'tunnels.read', 'tunnels.create', 'tunnels.write']);
  assert.deepEqual(ORG_ACTIONS.filter((a) => decide({ kind: 'member', role: 'member', scopes: ['account:read'] }, a) === 'allowed'), []);
  // The organization's own token: its tunnels, within its scopes.
  assert.deepEqual(ORG_ACTIONS.filter((a) => decide({ kind: 'org-token', scopes: ['tunnels:write'] }, a) === 'allowed'), ['org.read', 'tunnels.read', 'tunnels.create', 'tunnels.write', 'tunnels.access']);
  assert.deepEqual(ORG_ACTIONS.filter((a) => decide({ kind: 'org-token', scopes: ['tunnels:read'] }, a) === 'allowed'), ['org.read', 'tunnels.read']);
});

const s = useServer();
const owner = useSignedIn(s, { email: uniqueEmail('roles-owner'), verified: true });

interface Probe {
  name: string;
  rest: (slug: string, ctx: Ctx) => { method: 'GET' | 'POST' | 'PATCH' | 'DELETE'; path: string; body?: Record<string, unknown> };
  graphql: (slug: string, ctx: Ctx) => { query: string; variables: Record<string, unknown> };
}
interface Ctx {
  tunnelId: string;
  targetId: string;
}

/** Actions that leave the organization as it was, so every caller can try each in turn. */
const PROBES: Probe[] = [
  { name: 'read the organization', rest: (slug) => ({ method: 'GET', path: `/api/orgs/${slug}` }), graphql: (slug) => ({ query: 'query ($s: String!) { organization(slug: $s) { slug } }', variables: { s: slug } }) },
  {
    name: 'rename (name)',
    rest: (slug) => ({ method: 'PATCH', path: `/api/orgs/${slug}`, body: { name: 'Same Name' } }),
    graphql: (slug) => ({ query: 'mutation ($s: String!) { updateOrganization(slug: $s, name: "Same Name") { slug } }', variables: { s: slug } }),
  },
  {
    name: 'list members',
    rest: (slug) => ({ method: 'GET', path: `/api/orgs/${slug}/members` }),
    graphql: (slug) => ({ query: 'query ($s: String!) { organization(slug: $s) { members { edges { node { email } } } } }', variables: { s: slug } }),
  },
  {
    name: "set a member's role",
    rest: (slug, c) => ({ method: 'PATCH', path: `/api/orgs/${slug}/members/${c.targetId}`, body: { role: 'member' } }),
    graphql: (slug, c) => ({ query: 'mutation ($s: String!, $a: ID!) { changeMemberRole(slug: $s, accountId: $a, role: "member") { role } }', variables: { s: slug, a: c.targetId } }),
  },
  {
    name: 'read the audit log',
    rest: (slug) => ({ method: 'GET', path: `/api/orgs/${slug}/audit?limit=1` }),
    graphql: (slug) => ({ query: 'query ($s: String!) { organization(slug: $s) { audit(first: 1) { edges { node { id } } } } }', variables: { s: slug } }),
  },
  {
    name: 'list tunnels',
    rest: (slug) => ({ method: 'GET', path: `/api/orgs/${slug}/tunnels` }),
    graphql: (slug) => ({ query: 'query ($s: String!) { organization(slug: $s) { tunnels { edges { node { id } } } } }', variables: { s: slug } }),
  },
  {
    name: 'create a tunnel',
    rest: (slug) => ({ method: 'POST', path: `/api/orgs/${slug}/tunnels`, body: { subdomain: uniqueSubdomain('r') } }),
    graphql: (slug) => ({ query: 'mutation ($s: String!, $d: String!) { createOrganizationTunnel(slug: $s, subdomain: $d) { id } }', variables: { s: slug, d: uniqueSubdomain('g') } }),
  },
  {
    name: 'change a tunnel',
    rest: (_slug, c) => ({ method: 'PATCH', path: `/api/tunnels/${c.tunnelId}`, body: { discoverable: false } }),
    graphql: (_slug, c) => ({ query: 'mutation ($id: ID!) { updateTunnel(id: $id, discoverable: false) { id } }', variables: { id: c.tunnelId } }),
  },
  {
    name: "change a tunnel's access",
    rest: (_slug, c) => ({ method: 'PATCH', path: `/api/tunnels/${c.tunnelId}`, body: { allowed_emails: [] } }),
    graphql: (_slug, c) => ({ query: 'mutation ($id: ID!) { updateTunnel(id: $id, allowedEmails: []) { id } }', variables: { id: c.tunnelId } }),
  },
];

/** Expected answer per caller and probe: 'ok', 403 or 404. */
type Outcome = 'ok' | 403 | 404;
const EXPECTED: Record<string, Outcome[]> = {
  //                    read  rename members setRole audit tunnels create change access
  owner: ['ok', 'ok', 'ok', 'ok', 'ok', 'ok', 'ok', 'ok', 'ok'],
  admin: ['ok', 'ok', 'ok', 'ok', 'ok', 'ok', 'ok', 'ok', 'ok'],
  member: ['ok', 403, 'ok', 403, 403, 'ok', 'ok', 'ok', 403],
  'admin token (tunnels:read)': ['ok', 403, 403, 403, 403, 'ok', 403, 403, 403],
  'member token (tunnels:write)': ['ok', 403, 403, 403, 403, 'ok', 'ok', 'ok', 403],
  'non-member': [404, 404, 404, 404, 404, 404, 404, 404, 404],
};

async function token(who: SignedIn, scopes: string[]): Promise<string> {
  const r = await s.request('/api/tokens', { method: 'POST', bearer: who.token, body: { name: 'roles', scopes } });
  assert.equal(r.status, 201, r.text);
  return r.json.token;
}

test('role × action on REST and GraphQL: allowed, 403 without the role or scope, 404 for a non-member', async () => {
  const slug = `roles-${Date.now().toString(36)}`;
  assert.equal((await s.request('/api/orgs', { method: 'POST', bearer: owner.token, body: { slug, name: 'Same Name' } })).status, 201);
  const org = (await s.request(`/api/orgs/${slug}`, { bearer: owner.token })).json;
  const people: Record<string, SignedIn> = {};
  for (const role of ['admin', 'member', 'target'] as const) {
    people[role] = await signedIn(s, { verified: true });
    await s.deps.db.orgMember.create({ data: { orgId: org.id, accountId: people[role].id, role: role === 'target' ? 'member' : role } });
  }
  const stranger = await signedIn(s, { verified: true });
  const tunnel = await s.request(`/api/orgs/${slug}/tunnels`, { method: 'POST', bearer: owner.token, body: { subdomain: uniqueSubdomain('rt') } });
  assert.equal(tunnel.status, 201, tunnel.text);
  const ctx: Ctx = { tunnelId: tunnel.json.id, targetId: people.target!.id };
  const callers: Record<string, string> = {
    owner: owner.token,
    admin: people.admin!.token,
    member: people.member!.token,
    'admin token (tunnels:read)': await token(people.admin!, ['tunnels:read']),
    'member token (tunnels:write)': await token(people.member!, ['tunnels:write']),
    'non-member': stranger.token,
  };
  const failures: string[] = [];
  for (const [caller, bearer] of Object.entries(callers)) {
    for (const [i, probe] of PROBES.entries()) {
      const expected = EXPECTED[caller]![i]!;
      const req = probe.rest(slug, ctx);
      const r = await s.request(req.path, { method: req.method, bearer, ...(req.body ? { body: req.body } : {}) });
      const got: Outcome | number = r.status < 300 ? 'ok' : r.status;
      if (got !== expected) failures.push(`REST ${caller} / ${probe.name}: ${got} (expected ${expected}) ${r.text.slice(0, 120)}`);
      const g = probe.graphql(slug, ctx);
      const gr = await gql(s, g.query, g.variables, { bearer });
      const code = gqlCode(gr);
      const gotG: Outcome | string = code === null ? 'ok' : code === 'FORBIDDEN' ? 403 : code === 'NOT_FOUND' ? 404 : code;
      if (gotG !== expected) failures.push(`GraphQL ${caller} / ${probe.name}: ${gotG} (expected ${expected}) ${gr.text.slice(0, 120)}`);
    }
  }
  assert.deepEqual(failures, []);
});
