// SSO on the graph: unlinking a provider and confirming a pending link (the linked providers
// themselves are Account.linkedProviders, in account.ts).
import { confirmLink } from '../../../domain/sso/pending-link.js';
import { unlinkProvider } from '../../../domain/sso/unlink.js';
import { builder } from '../builder.js';
import { AuthPayloadRef, authAnswer } from './session.js';

builder.mutationFields((t) => ({
  unlinkProvider: t.boolean({
    description: 'Disconnects a linked provider; refused for the last sign-in method of an account without a password.',
    authScopes: { signedIn: true },
    args: { provider: t.arg.string({ required: true, description: 'google or github' }) },
    resolve: async (_root, args, ctx) => {
      await unlinkProvider(ctx.deps, ctx.viewer!.accountId, args.provider, ctx.client);
      return true;
    },
  }),
  confirmLink: t.field({
    type: AuthPayloadRef,
    hashesPassword: true,
    description:
      'Binds a pending SSO identity to its account with the account password, and signs in (sets the cookie); with two-step ' +
      'sign-in on, answers mfaRequired instead and binds once verifyMfa passes.',
    args: { token: t.arg.string({ required: true }), password: t.arg.string({ required: true }) },
    resolve: async (_root, args, ctx) => authAnswer(ctx, await confirmLink(ctx.deps, args, ctx.client)),
  }),
}));
