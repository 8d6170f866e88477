// At most one password hash per GraphQL request: argon2id is the costliest work a request does, so
// aliases (`a: login(...) b: login(...) …`) must not multiply it. A validation rule refuses an
// operation that selects more than one password-hashing mutation, before anything runs.
// The mutations that count declare `hashesPassword` on their field (field-policy.ts); the set of
// their names is read from the schema once, when the rule first meets it.
import { GraphQLError, Kind, type GraphQLSchema, type SelectionSetNode, type ValidationContext, type ValidationRule } from 'graphql';
import { hashesPassword } from './field-policy.js';
import { PROBLEMS } from '../../domain/problems.js';

const passwordFieldsBySchema = new WeakMap<GraphQLSchema, ReadonlySet<string>>();

/** The root mutations of `schema` declared `hashesPassword`, by name. */
export function passwordMutations(schema: GraphQLSchema): ReadonlySet<string> {
  let names = passwordFieldsBySchema.get(schema);
  if (names === undefined) {
    const fields = Object.values(schema.getMutationType()?.getFields() ?? {});
    names = new Set(fields.filter((f) => hashesPassword(f)).map((f) => f.name));
    passwordFieldsBySchema.set(schema, names);
  }
  return names;
}

function countPasswordFields(context: ValidationContext, names: ReadonlySet<string>, set: SelectionSetNode, seen: Set<string>): number {
  let n = 0;
  for (const s of set.selections) {
    if (s.kind === Kind.FIELD) {
      if (names.has(s.name.value)) n++;
    } else if (s.kind === Kind.INLINE_FRAGMENT) {
      n += countPasswordFields(context, names, s.selectionSet, seen);
    } else if (!seen.has(s.name.value)) {
      seen.add(s.name.value);
      const fragment = context.getFragment(s.name.value);
      if (fragment) n += countPasswordFields(context, names, fragment.selectionSet, seen);
    }
  }
  return n;
}

export const OnePasswordPerRequest: ValidationRule = (context) => ({
  OperationDefinition(node) {
    if (node.operation !== 'mutation') return;
    if (countPasswordFields(context, passwordMutations(context.getSchema()), node.selectionSet, new Set()) > 1) {
      context.reportError(
        new GraphQLError('At most one password operation (sign-up, sign-in, password change, …) per request.', {
          nodes: [node],
          extensions: { code: PROBLEMS.onePasswordOperation.code, problem: PROBLEMS.onePasswordOperation.slug },
        }),
      );
    }
  },
});
