// Query.providers: which SSO providers this server offers, so a sign-in page shows only the
// buttons that work (a disabled provider's /auth/oauth paths answer 404). Public, no credential.
import { builder } from '../builder.js';

builder.queryFields((t) => ({
  providers: t.stringList({
    description: 'The enabled sign-in providers (google, github), in that order; start one at GET /auth/oauth/<provider>/start.',
    resolve: (_root, _args, ctx) => (['google', 'github'] as const).filter((p) => ctx.deps.config[p] !== null),
  }),
}));
