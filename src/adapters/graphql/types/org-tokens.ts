// An organization's service tokens on the graph (API.md section 18): `Organization.tokens`
// (admins and owners), `createOrganizationToken` (the secret in this answer only) and
// `revokeOrganizationToken`. Sessions only: `tokens` opts out of the Organization type's default
// reach and the mutations declare none, so no token reaches any of it.
import { arrayConnection } from '../connections.js';
import { createOrgToken, listOrgTokens, revokeOrgToken } from '../../../domain/orgs/org-tokens.js';
import { builder } from '../builder.js';
import { TOKEN_REACH } from '../field-policy.js';
import { actorOf } from '../context.js';
import { OrganizationRef } from './organization.js';
import { CreatedServiceTokenRef, ServiceTokenRef } from './service-tokens.js';

/** Listed at most (expired tokens stay listed; at most 50 live). */
const MAX_LISTED = 1000;

builder.objectField(ServiceTokenRef, 'createdBy', (t) =>
  t.id({ nullable: true, description: 'For an organization’s token: the account id of the member who made it (kept after they leave). Null for a person’s own token.', resolve: (row) => row.createdBy }),
);

builder.objectField(OrganizationRef, 'tokens', (t) =>
  t.connection(
    {
      type: ServiceTokenRef,
      tokenScopes: TOKEN_REACH.none,
      description: 'The organization’s service tokens, newest first, expired ones included. Admins and owners.',
      resolve: async (org, args, ctx) => arrayConnection(await listOrgTokens(ctx.deps, actorOf(ctx), org.slug), args, MAX_LISTED),
    },
    { name: 'OrganizationTokenConnection' },
    { name: 'OrganizationTokenEdge' },
  ),
);

builder.mutationFields((t) => ({
  createOrganizationToken: t.field({
    type: CreatedServiceTokenRef,
    authScopes: { signedIn: true },
    description: 'Creates a token of the organization (admins and owners; a verified address and a recent sign-in, REAUTH_REQUIRED): it reaches the organization’s tunnels only, with tunnels:read and/or tunnels:write.',
    args: {
      slug: t.arg.string({ required: true }),
      name: t.arg.string({ required: true }),
      scopes: t.arg.stringList({ required: true }),
      expiresInDays: t.arg.int({ required: false, description: '1–366; null or absent: no expiry.' }),
    },
    resolve: async (_root, args, ctx) => {
      const created = await createOrgToken(ctx.deps, actorOf(ctx), args.slug, args);
      return { token: created.token, serviceToken: created.row };
    },
  }),
  revokeOrganizationToken: t.boolean({
    authScopes: { signedIn: true },
    description: 'Revokes a token of the organization (admins and owners): it stops working on its next request, on every instance.',
    args: { slug: t.arg.string({ required: true }), id: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => {
      await revokeOrgToken(ctx.deps, actorOf(ctx), args.slug, String(args.id));
      return true;
    },
  }),
}));
