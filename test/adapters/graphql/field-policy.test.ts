// What a field allows is declared on the field (field-policy.ts), and nowhere else: the service
// tokens' reach and the password budget are read from the built schema, no list keyed by
// `Type.field` (or by mutation name) may come back beside it (issue 55, item 1).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import SchemaBuilder from '@pothos/core';
import { isObjectType, parse, validate } from 'graphql';
import ts from 'typescript';
import FieldPolicyPlugin, { hashesPassword, tokenScopesOf } from '../../../src/adapters/graphql/field-policy.js';
import { OnePasswordPerRequest, passwordMutations } from '../../../src/adapters/graphql/password-budget.js';
import { schema } from '../../../src/adapters/graphql/schema.js';
import { firstUnreachable } from '../../../src/adapters/graphql/token-scopes.js';
import { TOKEN_SCOPES } from '../../../src/domain/tokens/scopes.js';

const objectTypes = Object.values(schema.getTypeMap()).filter((t) => isObjectType(t) && !t.name.startsWith('__'));
const mutations = Object.values(schema.getMutationType()!.getFields());

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

test('a mutation counts against the password budget exactly when it takes a password', () => {
  for (const field of mutations) {
    const takesPassword = field.args.some((a) => /password/i.test(a.name));
    assert.equal(hashesPassword(field), takesPassword, `Mutation.${field.name}: ${takesPassword ? 'takes a password but does not declare hashesPassword' : 'declares hashesPassword without a password argument'}`);
  }
  assert.ok(passwordMutations(schema).has('login'));
  assert.ok(passwordMutations(schema).size >= 10);
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

/** Every TypeScript source under `dir`. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.d.ts'))
    .map((e) => join(e.parentPath, e.name))
    .filter((p) => !p.includes('/generated/'));
}

/** String literals of the source, and each array literal made only of string literals. */
function literalsOf(path: string, text = readFileSync(path, 'utf8')): { strings: string[]; lists: string[][] } {
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, false);
  const strings: string[] = [];
  const lists: string[][] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) strings.push(node.text);
    if (ts.isArrayLiteralExpression(node) && node.elements.length > 1 && node.elements.every((e) => ts.isStringLiteral(e))) {
      lists.push(node.elements.map((e) => (e as ts.StringLiteral).text));
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return { strings, lists };
}

/** What the check below reports for one source file. */
function listsIn(path: string, coordinates: ReadonlySet<string>, mutationNames: ReadonlySet<string>, text?: string): string[] {
  const found: string[] = [];
  const { strings, lists } = literalsOf(path, text);
  for (const s of strings) if (coordinates.has(s)) found.push(`${path}: the coordinate '${s}'`);
  for (const list of lists) if (list.every((s) => mutationNames.has(s))) found.push(`${path}: a list of mutations [${list.join(', ')}]`);
  return found;
}

const coordinates = new Set<string>();
for (const type of objectTypes) {
  if (!isObjectType(type)) continue;
  coordinates.add(`${type.name}.*`);
  for (const name of Object.keys(type.getFields())) coordinates.add(`${type.name}.${name}`);
}
const mutationNames = new Set(mutations.map((f) => f.name));

test('no source keeps a list of schema coordinates or of password mutations', () => {
  const found = sources(join(import.meta.dirname, '../../../src')).flatMap((path) => listsIn(path, coordinates, mutationNames));
  assert.deepEqual(found, [], 'declare tokenScopes / hashesPassword on the field instead');
});

test('the check finds the lists it is there to keep out', () => {
  const old = "const REACH = new Map([['Account.email', ['account:read']], ['Tunnel.*', ['tunnels:read']]]);\nconst PASSWORD_MUTATIONS = new Set(['signup', 'login']);";
  assert.deepEqual(listsIn('probe.ts', coordinates, mutationNames, old), [
    "probe.ts: the coordinate 'Account.email'",
    "probe.ts: the coordinate 'Tunnel.*'",
    'probe.ts: a list of mutations [signup, login]',
  ]);
  assert.deepEqual(listsIn('probe.ts', coordinates, mutationNames, "const providers = ['google', 'github'];"), []);
});
