// The console's consent page on the graph (API.md section 13): what an application asks for, and
// the answer. Only sessions reach these (token-scopes.ts names none of them).
import type { ConsentRequest } from '../../oauth/oauth-server.js';
import { builder } from '../builder.js';

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
