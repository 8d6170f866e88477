// The account slug (SPEC sections 2.1 and 8): derived from the email at signup, renamed through
// PATCH /api/account/slug under every rule; 409 when taken, 400 for a rule violation.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { signedIn, signup } from '../../support/accounts.js';
import { gql, gqlCode } from '../../support/graphql.js';
import { assertProblem } from '../../support/problem.js';
import { useServer } from '../../support/server.js';

const s = useServer();

const RESERVED = ['api', 'www', 'admin', 'login', 'dashboard', 'status', 'mail', 'app', 'auth', 'docs', 'help', 'support', 'static'];

function assertSlugRules(slug: string): void {
  assert.ok(slug.length >= 3 && slug.length <= 28, `length: ${slug}`);
  assert.match(slug, /^[a-z0-9-]+$/);
  assert.ok(!slug.startsWith('-') && !slug.endsWith('-') && !slug.includes('--'), `hyphens: ${slug}`);
  assert.ok(!RESERVED.includes(slug), `reserved: ${slug}`);
}

const tag = () => randomBytes(3).toString('hex');
const rename = (token: string | undefined, slug: unknown) =>
  s.request('/api/account/slug', { method: 'PATCH', body: { slug }, ...(token ? { bearer: token } : {}) });

test('the signup slug is derived from the email local part', async () => {
  const t = tag();
  const a = await signup(s, { email: `Jane.Doe${t}+news@example.com` });
  assert.equal(a.slug, `jane-doe${t}`);
  const row = await s.deps.db.account.findUniqueOrThrow({ where: { id: a.id } });
  assert.equal(row.slug, a.slug);
});

test('a derived slug that is taken gets a suffix and still follows every rule', async () => {
  const t = tag();
  const first = await signup(s, { email: `twin${t}@example.com` });
  const second = await signup(s, { email: `twin${t}@example.org` });
  assert.equal(first.slug, `twin${t}`);
  assert.notEqual(second.slug, first.slug);
  assert.ok(second.slug.startsWith(`twin${t}-`), second.slug);
  assertSlugRules(second.slug);
});

test('derived slugs follow every rule for awkward emails (short, reserved, hyphens, long, symbols)', async () => {
  const t = tag();
  const locals = [
    'a',
    'ab',
    ...RESERVED,
    '--x--y--',
    '_.-_',
    `${'long'.repeat(14)}${t}`,
    '123',
    'x__y..z',
    "o'brien+tag",
    'a!b#c$d%e&f*g=h?i^j{k}l~m',
  ];
  for (const local of locals) {
    const a = await signup(s, { email: `${local}@s${t}-${local.length}.example.com` });
    assertSlugRules(a.slug);
  }
});

test('PATCH /api/account/slug renames: 200 {slug}; the new slug shows on the account', async () => {
  const a = await signedIn(s);
  const slug = `renamed-${tag()}`;
  const r = await rename(a.token, slug);
  assert.equal(r.status, 200);
  assert.deepEqual(r.json, { slug });
  assert.equal((await s.request('/api/account', { bearer: a.token })).json.slug, slug);
  assert.equal((await rename(a.token, slug)).status, 200, 'renaming to the own slug is a no-op');
});

test('rename accepts exactly 3 and 28 characters, digits and single hyphens', async () => {
  const a = await signedIn(s);
  const t = tag();
  for (const slug of [`${t}x`.slice(0, 3), `${t}-${'a'.repeat(21)}`, `0-${t}-9`]) {
    assert.equal(slug.length >= 3 && slug.length <= 28, true);
    const r = await rename(a.token, slug);
    assert.equal(r.status, 200, `${slug}: ${r.text}`);
  }
});

test('rename to a taken slug answers 409 CONFLICT', async () => {
  const a = await signedIn(s);
  const b = await signedIn(s);
  assertProblem(await rename(a.token, b.slug), 409, 'CONFLICT');
  assert.equal((await s.request('/api/account', { bearer: a.token })).json.slug, a.slug);
});

test('rename refuses every rule violation with 400 BAD_REQUEST (REST and GraphQL alike)', async () => {
  const a = await signedIn(s);
  const bad = [
    'ab',
    'a'.repeat(29),
    'Upper',
    'under_score',
    'dot.ted',
    'spa ce',
    'ümlaut',
    '-leading',
    'trailing-',
    'dou--ble',
    '',
    ...RESERVED,
  ];
  for (const slug of bad) {
    assertProblem(await rename(a.token, slug), 400, 'BAD_REQUEST');
    const g = await gql(s, 'mutation ($slug: String!) { renameSlug(slug: $slug) { slug } }', { slug }, { bearer: a.token });
    assert.equal(gqlCode(g), 'BAD_REQUEST', `${slug}: ${g.text}`);
  }
  for (const slug of [42, null, ['abc'], { slug: 'abc' }]) assertProblem(await rename(a.token, slug), 400, 'BAD_REQUEST');
  assert.equal((await s.request('/api/account', { bearer: a.token })).json.slug, a.slug);
});

test('rename needs a session: 401', async () => {
  assertProblem(await rename(undefined, `x-${tag()}`), 401, 'UNAUTHENTICATED');
});
