// At most one password hash per GraphQL request: argon2id is the costliest work a request does, so
// aliases (`a: login(...) b: login(...) …`) must not multiply it. A validation rule refuses an
// operation that selects more than one password-hashing mutation, before anything runs.
import { GraphQLError, Kind, type SelectionSetNode, type ValidationContext, type ValidationRule } from 'graphql';

/** Root mutations that verify or hash a password. */
export const PASSWORD_MUTATIONS: ReadonlySet<string> = new Set([
  'signup',
  'login',
  'confirmLink',
  'changeEmail',
  'changePassword',
  'resetPassword',
  'deleteAccount',
  'setupTotp',
  'disableTotp',
  'regenerateRecoveryCodes',
  'reauthenticate',
]);

function countPasswordFields(context: ValidationContext, set: SelectionSetNode, seen: Set<string>): number {
  let n = 0;
  for (const s of set.selections) {
    if (s.kind === Kind.FIELD) {
      if (PASSWORD_MUTATIONS.has(s.name.value)) n++;
    } else if (s.kind === Kind.INLINE_FRAGMENT) {
      n += countPasswordFields(context, s.selectionSet, seen);
    } else if (!seen.has(s.name.value)) {
      seen.add(s.name.value);
      const fragment = context.getFragment(s.name.value);
      if (fragment) n += countPasswordFields(context, fragment.selectionSet, seen);
    }
  }
  return n;
}

export const OnePasswordPerRequest: ValidationRule = (context) => ({
  OperationDefinition(node) {
    if (node.operation !== 'mutation') return;
    if (countPasswordFields(context, node.selectionSet, new Set()) > 1) {
      context.reportError(
        new GraphQLError('At most one password operation (sign-up, sign-in, password change, …) per request.', {
          nodes: [node],
          extensions: { code: 'BAD_REQUEST' },
        }),
      );
    }
  },
});
