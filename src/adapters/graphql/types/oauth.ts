// The console's consent page on the graph (API.md section 13): what an application asks for, and
// the answer. Only sessions reach these (none of them declares tokenScopes).
import type { ConsentRequest } from '../../authorization-server/server.js';
import { builder } from '../builder.js';
import { actorOf } from '../context.js';
import { TOKEN_REACH } from '../field-policy.js';
import { listAccountGrants, listTunnelGrants, revokeAccountGrant, revokeTunnelGrant, type GrantView } from '../../../domain/oauth/grants.js';
import { AccountRef } from './account.js';
import { TunnelRef } from './tunnel.js';

const ConsentTunnelRef = builder.objectRef<ConsentRequest['tunnel']>('OAuthRequestTunnel').implement({
  fields: (t) => ({ id: t.exposeID('id'), host: t.exposeString('host') }),
});

const OAuthRequestRef = builder.objectRef<ConsentRequest>('OAuthRequest').implement({
  description: 'An application (an MCP client) asking for access to a tunnel that requires OAuth.',
  fields: (t) => ({
    clientId: t.exposeString('clientId'),
    clientName: t.exposeString('clientName'),
    redirectHost: t.exposeString('redirectHost', { description: 'Where the answer goes: the host of its redirect URI.' }),
    resource: t.exposeString('resource', { description: "The tunnel's /mcp URL." }),
    tunnel: t.field({ type: ConsentTunnelRef, resolve: (r) => r.tunnel }),
    scopes: t.exposeStringList('scopes'),
    allowed: t.exposeBoolean('allowed', { description: 'False: this account is not allowed on the tunnel; the request can only be denied.' }),
  }),
});

builder.queryField('oauthRequest', (t) =>
  t.field({
    type: OAuthRequestRef,
    description: 'A pending authorization request, bound to the session that opens it first.',
    authScopes: { signedIn: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => ctx.oauth.describe(String(args.id), ctx.viewer!),
  }),
);

builder.mutationFields((t) => ({
  approveOAuthRequest: t.string({
    description: "Grants the access; answers the application's redirect URI with the code (FORBIDDEN when not allowed on the tunnel).",
    authScopes: { signedIn: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => ctx.oauth.approve(String(args.id), ctx.viewer!, ctx.client),
  }),
  denyOAuthRequest: t.string({
    description: "Refuses; answers the application's redirect URI with error=access_denied.",
    authScopes: { signedIn: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => ctx.oauth.deny(String(args.id), ctx.viewer!),
  }),
}));

const GrantTunnelRef = builder.objectRef<{ id: string; host: string }>('OAuthGrantTunnel').implement({
  fields: (t) => ({ id: t.exposeID('id'), host: t.exposeString('host') }),
});

const OAuthGrantRef = builder.objectRef<GrantView>('OAuthGrant').implement({
  description: "An application's access to an OAuth-protected tunnel, granted by an account.",
  fields: (t) => ({
    id: t.exposeID('id'),
    clientId: t.exposeString('clientId'),
    clientName: t.exposeString('clientName'),
    resource: t.exposeString('resource', { description: "The tunnel's /mcp URL the access is bound to." }),
    tunnel: t.field({ type: GrantTunnelRef, nullable: true, description: 'Null once the tunnel no longer requires OAuth.', resolve: (g) => g.tunnel }),
    scopes: t.exposeStringList('scopes'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    lastUsedAt: t.expose('lastUsedAt', { type: 'DateTime', nullable: true, description: 'When it last got tokens.' }),
    email: t.exposeString('email', { nullable: true, description: "The holder's address, in the tunnel owner's view (Tunnel.accessGrants)." }),
  }),
});

builder.objectField(AccountRef, 'oauthGrants', (t) =>
  t.field({
    type: [OAuthGrantRef],
    description: 'Authorized applications: what this account allowed, newest first.',
    resolve: (account, _args, ctx) => listAccountGrants(ctx.deps, account.id),
  }),
);

builder.objectField(TunnelRef, 'accessGrants', (t) =>
  t.field({
    type: [OAuthGrantRef],
    description: 'Who holds access to this (OAuth-protected) tunnel, newest first.',
    // Names other people (their addresses): never a token's, whatever Tunnel's other fields allow.
    tokenScopes: TOKEN_REACH.none,
    resolve: (tunnel, _args, ctx) => listTunnelGrants(ctx.deps, actorOf(ctx), tunnel.id),
  }),
);

builder.mutationFields((t) => ({
  revokeOAuthGrant: t.boolean({
    description: "Revokes one of this account's authorized applications: its tokens turn inactive at once.",
    authScopes: { signedIn: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => {
      await revokeAccountGrant(ctx.deps, ctx.viewer!.accountId, String(args.id), ctx.client);
      return true;
    },
  }),
  revokeTunnelAccess: t.boolean({
    description: "The tunnel's owner (for an organization's tunnel, its admins and owners) revokes someone's access to it.",
    authScopes: { signedIn: true },
    args: { tunnelId: t.arg.id({ required: true }), grantId: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => {
      await revokeTunnelGrant(ctx.deps, actorOf(ctx), String(args.tunnelId), String(args.grantId));
      return true;
    },
  }),
}));
