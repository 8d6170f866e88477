// `npm run lint` step: what a GraphQL field allows is declared on the field (its `tokenScopes` and
// `hashesPassword`, src/adapters/graphql/field-policy.ts), never in a list beside the schema. Fails
// when a source under src/ holds a schema coordinate as a string (`'Account.email'`,
// `'Tunnel.*'`: the old scope table) or a list of string literals that are all mutation names
// (the old password-mutation list), or when a mutation that takes a password does not declare
// `hashesPassword` (or one that takes none declares it).
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { isObjectType, type GraphQLSchema } from 'graphql';
import ts from 'typescript';

/** The schema's coordinates (`Type.field`, `Type.*`) and its mutation names. */
export interface SchemaNames {
  coordinates: ReadonlySet<string>;
  mutations: ReadonlySet<string>;
}

export function schemaNames(schema: GraphQLSchema): SchemaNames {
  const coordinates = new Set<string>();
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    coordinates.add(`${type.name}.*`);
    for (const name of Object.keys(type.getFields())) coordinates.add(`${type.name}.${name}`);
  }
  return { coordinates, mutations: new Set(Object.keys(schema.getMutationType()?.getFields() ?? {})) };
}

/** What one source file keeps that belongs on the fields, as messages (none: nothing). */
export function listsIn(path: string, text: string, names: SchemaNames): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) && names.coordinates.has(node.text)) {
      found.push(`${path}: the schema coordinate '${node.text}'`);
    }
    if (ts.isArrayLiteralExpression(node) && node.elements.length > 1 && node.elements.every((e) => ts.isStringLiteral(e) && names.mutations.has(e.text))) {
      found.push(`${path}: a list of mutations [${node.elements.map((e) => (e as ts.StringLiteral).text).join(', ')}]`);
    }
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile(path, text, ts.ScriptTarget.Latest, false));
  return found;
}

/** A mutation hashes a password exactly when it takes one (an argument named …password…). */
export function undeclaredPasswordMutations(schema: GraphQLSchema, hashes: (field: { extensions: unknown }) => boolean): string[] {
  return Object.values(schema.getMutationType()?.getFields() ?? {})
    .filter((field) => field.args.some((a) => /password/i.test(a.name)) !== hashes(field))
    .map((field) => `Mutation.${field.name}: ${hashes(field) ? 'declares hashesPassword without a password argument' : 'takes a password but does not declare hashesPassword'}`);
}

/** Every TypeScript source under `dir` (generated code aside). */
export function sourcesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.d.ts'))
    .map((e) => join(e.parentPath, e.name))
    .filter((p) => !p.includes(`${join('src', 'generated')}`));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { schema } = await import('../src/adapters/graphql/schema.js');
  const { hashesPassword } = await import('../src/adapters/graphql/field-policy.js');
  const root = new URL('..', import.meta.url).pathname;
  const names = schemaNames(schema);
  const problems = [
    ...sourcesUnder(join(root, 'src')).flatMap((path) => listsIn(relative(root, path), readFileSync(path, 'utf8'), names)),
    ...undeclaredPasswordMutations(schema, (f) => hashesPassword(f as never)),
  ];
  for (const p of problems) console.error(p);
  if (problems.length > 0) {
    console.error('Declare tokenScopes / hashesPassword on the field (src/adapters/graphql/field-policy.ts) instead.');
    process.exitCode = 1;
  }
}
