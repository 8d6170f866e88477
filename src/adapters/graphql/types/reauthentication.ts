// Recent authentication on the graph (API.md section 7a): `me.reauthenticatedUntil` and the
// `reauthenticate` mutation (password, code, or a passkey assertion).
import { reauthenticatedUntil } from '../../../domain/sessions/recent-auth.js';
import { reauthenticate } from '../../../domain/reauth/reauthentication.js';
import { builder } from '../builder.js';
import { TOKEN_REACH } from '../field-policy.js';
import { AccountRef } from './account.js';
import { relyingParty } from './passkeys.js';

builder.objectField(AccountRef, 'reauthenticatedUntil', (t) =>
  t.field({
    type: 'DateTime',
    nullable: true,
    description:
      'Until when this session counts as recently authenticated (adding a passkey, linking a provider, new recovery codes ' +
      'need it); null once the window has passed.',
    // Always null for a token (it never authenticates recently); GET /api/account shows it.
    tokenScopes: TOKEN_REACH.account,
    // The session's own proof time, from its cached entry: no query.
    resolve: (_account, _args, ctx) => (ctx.viewer ? reauthenticatedUntil(ctx.deps, ctx.viewer.authenticatedAt) : null),
  }),
);

builder.mutationField('reauthenticate', (t) =>
  t.boolean({
    description:
      'Proves a credential again: exactly one of password, code (a current TOTP code or an unused recovery code, used up), ' +
      'or challengeId with response (an assertion of one of this account\'s passkeys, from passkeyLoginOptions). The session ' +
      'then counts as recently authenticated for REAUTH_WINDOW_SECONDS.',
    authScopes: { signedIn: true },
    hashesPassword: true,
    args: {
      password: t.arg.string({ required: false }),
      code: t.arg.string({ required: false }),
      challengeId: t.arg.string({ required: false }),
      response: t.arg({ type: 'JSONObject', required: false, description: 'AuthenticationResponseJSON from the browser.' }),
    },
    resolve: async (_root, args, ctx) => {
      await reauthenticate(ctx.deps, relyingParty(ctx), ctx.viewer!, args, ctx.client);
      return true;
    },
  }),
);
