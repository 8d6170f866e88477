// What a field allows is declared on the field (field-policy.ts), and nowhere else: the service
// tokens' reach and the password budget are read from the built schema, no list keyed by
// `Type.field` (or by mutation name) may come back beside it (issue 55, item 1).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import SchemaBuilder from '@pothos/core';
import { isObjectType, parse, validate } from 'graphql';
import FieldPolicyPlugin, { hashesPassword, tokenScopesOf } from '../../../src/adapters/graphql/field-policy.js';
import { OnePasswordPerRequest, passwordMutations } from '../../../src/adapters/graphql/password-budget.js';
import { schema } from '../../../src/adapters/graphql/schema.js';
import { firstUnreachable } from '../../../src/adapters/graphql/token-scopes.js';
import { TOKEN_SCOPES } from '../../../src/domain/tokens/scopes.js';
import { listsIn, schemaNames, sourcesUnder, undeclaredPasswordMutations } from '../../../scripts/lint-declarations.js';

const objectTypes = Object.values(schema.getTypeMap()).filter((t) => isObjectType(t) && !t.name.startsWith('__'));

test('every declared reach names known scopes only', () => {
  let declared = 0;
  for (const type of objectTypes) {
    if (!isObjectType(type)) continue;
    for (const field of Object.values(type.getFields())) {
      const scopes = tokenScopesOf(field);
      if (scopes === undefined) continue;
      declared++;
      for (const s of scopes) assert.ok((TOKEN_SCOPES as readonly string[]).includes(s), `${type.name}.${field.name}: unknown scope ${s}`);
    }
  }
  assert.ok(declared > 20, `only ${declared} fields declare a reach`);
});

test('a token reaches a field only under a scope the field (or its type) declares', () => {
  const doc = parse('{ me { email } }');
  assert.equal(firstUnreachable(schema, doc, ['account:read']), null);
  assert.equal(firstUnreachable(schema, doc, ['tunnels:read']), 'Account.email');
  assert.equal(firstUnreachable(schema, parse('mutation { deleteTunnel(id: "x") }'), ['tunnels:read']), 'Mutation.deleteTunnel');
  assert.equal(firstUnreachable(schema, parse('{ __schema { types { name } } }'), ['account:read', 'tunnels:read', 'tunnels:write']), 'Query.__schema');
  assert.equal(firstUnreachable(schema, parse('{ me { __typename id } }'), ['tunnels:read']), null);
  // A type's default, and a field that overrides it with no scope at all.
  assert.equal(firstUnreachable(schema, parse('{ me { tunnels { host pinnedTools } } }'), ['tunnels:read']), null);
  assert.equal(firstUnreachable(schema, parse('{ me { tunnels { accessGrants { id } } } }'), ['tunnels:read', 'tunnels:write', 'account:read']), 'Tunnel.accessGrants');
  // A field that declares nothing, on a type that declares nothing: no token.
  assert.equal(firstUnreachable(schema, parse('{ me { sessions { id } } }'), ['account:read', 'tunnels:read', 'tunnels:write']), 'Account.sessions');
});

test('the password budget counts the declared mutations', () => {
  assert.ok(passwordMutations(schema).has('login'));
  assert.ok(passwordMutations(schema).size >= 10);
  assert.ok(!passwordMutations(schema).has('logout'));
});

test('an operation selects at most one of the declared password mutations, fragments included', () => {
  const refused = (doc: string) => validate(schema, parse(doc), [OnePasswordPerRequest]).map((e) => [e.message, e.extensions.code]);
  const tooMany = [['At most one password operation (sign-up, sign-in, password change, …) per request.', 'BAD_REQUEST']];
  assert.deepEqual(refused('mutation { login(email: "a@b.c", password: "x") { token } }'), []);
  assert.deepEqual(refused('mutation { a: login(email: "a@b.c", password: "x") { token } b: login(email: "a@b.c", password: "y") { token } }'), tooMany);
  assert.deepEqual(refused('mutation { login(email: "a@b.c", password: "x") { token } ...F } fragment F on Mutation { deleteAccount(email: "a@b.c", password: "x") }'), tooMany);
  assert.deepEqual(refused('mutation { login(email: "a@b.c", password: "x") { token } ... on Mutation { reauthenticate(password: "x") } }'), tooMany);
  // Mutations that declare nothing do not count.
  assert.deepEqual(refused('mutation { login(email: "a@b.c", password: "x") { token } logout forgotPassword(email: "a@b.c") }'), []);
});

test('hashesPassword is refused outside the root mutations when the schema is built', () => {
  // Only this plugin: the options the application's other plugins make required do not apply.
  const options = { plugins: [FieldPolicyPlugin], defaultFieldNullability: false } as const;
  const b = new SchemaBuilder<{ DefaultFieldNullability: false }>(options as unknown as ConstructorParameters<typeof SchemaBuilder<{ DefaultFieldNullability: false }>>[0]);
  b.queryType({ fields: (t) => ({ login: t.boolean({ hashesPassword: true, resolve: () => true }) }) });
  assert.throws(() => b.toSchema(), /Query\.login: hashesPassword is for root mutations/);
});

const names = schemaNames(schema);

test('no source keeps a list of schema coordinates or of password mutations (npm run lint checks it too)', () => {
  const root = join(import.meta.dirname, '../../..');
  const found = sourcesUnder(join(root, 'src')).flatMap((path) => listsIn(path, readFileSync(path, 'utf8'), names));
  assert.deepEqual(found, [], 'declare tokenScopes / hashesPassword on the field instead');
  assert.deepEqual(undeclaredPasswordMutations(schema, (f) => hashesPassword(f as never)), []);
});

test('the check finds the lists it is there to keep out', () => {
  const old = "const REACH = new Map([['Account.email', ['account:read']], ['Tunnel.*', ['tunnels:read']]]);\nconst PASSWORD_MUTATIONS = new Set(['signup', 'login']);";
  assert.deepEqual(listsIn('probe.ts', old, names), [
    "probe.ts: the schema coordinate 'Account.email'",
    "probe.ts: the schema coordinate 'Tunnel.*'",
    'probe.ts: a list of mutations [signup, login]',
  ]);
  assert.deepEqual(listsIn('probe.ts', "const providers = ['google', 'github']; const fields = ['id', 'email'];", names), []);
  const forgot = (field: { extensions: unknown }) => hashesPassword(field as never) && (field as { name?: string }).name !== 'login';
  assert.deepEqual(undeclaredPasswordMutations(schema, forgot), ['Mutation.login: takes a password but does not declare hashesPassword']);
});
