// Service tokens on the graph (API.md section 12): `me.serviceTokens`, create (the secret in this
// answer only) and revoke. Only a session reaches these (none declares tokenScopes).
import { createServiceToken, listServiceTokens, revokeServiceToken } from '../../../domain/tokens/service-tokens.js';
import type { TokenRow } from '../../../domain/tokens/store.js';
import { builder } from '../builder.js';
import { AccountRef } from './account.js';

export const ServiceTokenRef = builder.objectRef<TokenRow>('ServiceToken').implement({
  description: 'A token for the tunnel CLI or a CI job: reaches only what its scopes name.',
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    scopes: t.exposeStringList('scopes', { description: 'A non-empty subset of tunnels:read, tunnels:write, account:read.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    expiresAt: t.expose('expiresAt', { type: 'DateTime', nullable: true, description: 'Null: it never expires. An expired token stays listed.' }),
    lastUsedAt: t.expose('lastUsedAt', { type: 'DateTime', nullable: true, description: 'Written at most once a minute.' }),
    lastUsedIp: t.exposeString('lastUsedIp', { nullable: true, description: 'Masked: 203.0.113.x or 2001:db8:1::x' }),
  }),
});

export const CreatedServiceTokenRef = builder.objectRef<{ token: string; serviceToken: TokenRow }>('CreatedServiceToken').implement({
  fields: (t) => ({
    token: t.exposeString('token', { description: 'The secret (`tsk_…`): shown in this answer only, stored only hashed.' }),
    serviceToken: t.field({ type: ServiceTokenRef, resolve: (c) => c.serviceToken }),
  }),
});

builder.objectField(AccountRef, 'serviceTokens', (t) =>
  t.field({
    type: [ServiceTokenRef],
    description: 'Service tokens, newest first, expired ones included.',
    resolve: (account, _args, ctx) => listServiceTokens(ctx.deps, account.id),
  }),
);

builder.mutationFields((t) => ({
  createServiceToken: t.field({
    type: CreatedServiceTokenRef,
    description: 'Creates a service token; needs a verified address and a recent sign-in (REAUTH_REQUIRED).',
    authScopes: { signedIn: true },
    args: {
      name: t.arg.string({ required: true }),
      scopes: t.arg.stringList({ required: true }),
      expiresInDays: t.arg.int({ required: false, description: '1–366; null or absent: no expiry.' }),
    },
    resolve: async (_root, args, ctx) => {
      const created = await createServiceToken(ctx.deps, ctx.viewer!, args, ctx.client);
      return { token: created.token, serviceToken: created.row };
    },
  }),
  revokeServiceToken: t.boolean({
    description: 'Revokes a service token: it stops working on its next request, on every instance.',
    authScopes: { signedIn: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => {
      await revokeServiceToken(ctx.deps, ctx.viewer!.accountId, String(args.id), ctx.client);
      return true;
    },
  }),
}));
