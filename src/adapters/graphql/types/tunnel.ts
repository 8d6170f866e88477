// Tunnels: the Tunnel type, `me.tunnels`, `tunnel(id)` and the tunnel mutations. Owner only:
// another account's tunnel answers NOT_FOUND, like a missing one.
import { tunnelHostSuffix } from '../../../domain/tunnels/names.js';
import { createTunnel, deleteTunnel, getTunnel, listTunnels, updateTunnel, type TunnelView } from '../../../domain/tunnels/tunnels.js';
import { builder } from '../builder.js';
import { TOKEN_REACH } from '../field-policy.js';
import { AccountRef } from './account.js';
import { actorOf } from '../context.js';
import { orgAccess, tokenOrg } from '../../../domain/membership/access.js';

const TunnelOwnerRef = builder.objectRef<TunnelView['owner']>('TunnelOwner').implement({
  tokenScopes: TOKEN_REACH.tunnelsRead,
  fields: (t) => ({
    type: t.exposeString('type', { description: '"account" or "org".' }),
    slug: t.exposeString('slug'),
  }),
});

export const TunnelRef = builder.objectRef<TunnelView>('Tunnel').implement({
  tokenScopes: TOKEN_REACH.tunnelsRead,
  fields: (t) => ({
    id: t.exposeID('id'),
    subdomain: t.exposeString('subdomain'),
    host: t.exposeString('host', { description: 'The public host: <subdomain>--<account slug>.ZONE' }),
    url: t.exposeString('url', { description: 'The MCP endpoint: https://<host>/mcp' }),
    customDomain: t.exposeString('customDomain', { nullable: true }),
    discoverable: t.exposeBoolean('discoverable', { description: 'When true, the Server Card is served.' }),
    pinnedTools: t.exposeStringList('pinnedTools', { description: 'Tool names captured from tools/list, in order.' }),
    access: t.exposeString('access', { description: '"public" (the default) or "oauth": /mcp then needs a bearer token from this server (OAuth for tunnels).' }),
    allowedEmails: t.exposeStringList('allowedEmails', { description: 'Who besides the owner may be granted access: addresses or @domain entries (lower-cased).' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    owner: t.field({ type: TunnelOwnerRef, description: 'The account or organization that owns it.', resolve: (v) => v.owner }),
  }),
});

builder.objectField(AccountRef, 'tunnels', (t) =>
  t.field({
    type: [TunnelRef],
    tokenScopes: TOKEN_REACH.tunnelsRead,
    resolve: (account, _args, ctx) => listTunnels(ctx.deps, account.id),
  }),
);

builder.objectField(AccountRef, 'tunnelHostSuffix', (t) =>
  t.string({
    description: "What follows a new tunnel's subdomain in its host: --<slug>.ZONE (the host is <subdomain>--<slug>.ZONE).",
    tokenScopes: TOKEN_REACH.tunnelsRead,
    resolve: (account, _args, ctx) => tunnelHostSuffix(account.slug, ctx.deps.config.zone),
  }),
);

builder.queryField('tunnel', (t) =>
  t.field({
    type: TunnelRef,
    authScopes: { signedIn: true },
    tokenScopes: TOKEN_REACH.tunnelsRead,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => getTunnel(ctx.deps, actorOf(ctx), String(args.id)),
  }),
);

builder.mutationFields((t) => ({
  createTunnel: t.field({
    type: TunnelRef,
    authScopes: { signedIn: true },
    tokenScopes: TOKEN_REACH.tunnelsWrite,
    args: { subdomain: t.arg.string({ required: true }), customDomain: t.arg.string(), access: t.arg.string(), allowedEmails: t.arg.stringList() },
    resolve: async (_root, args, ctx) => {
      const actor = actorOf(ctx);
      // An organization's own token creates the organization's tunnel, as createOrganizationTunnel does.
      const org = await tokenOrg(ctx.deps, actor.viewer);
      const scope = org && (await orgAccess(ctx.deps, actor, org.slug, (args.access != null && args.access !== 'public') || args.allowedEmails != null ? 'tunnels.access' : 'tunnels.create'));
      const id = await createTunnel(ctx.deps, actor.viewer.accountId, args, scope);
      return getTunnel(ctx.deps, actor, id);
    },
  }),
  updateTunnel: t.field({
    type: TunnelRef,
    authScopes: { signedIn: true },
    tokenScopes: TOKEN_REACH.tunnelsWrite,
    description: 'Changes the discoverable flag, the custom domain (null clears it), the subdomain, the access and/or the allowed emails (a new list replaces the old).',
    args: {
      id: t.arg.id({ required: true }),
      discoverable: t.arg.boolean(),
      customDomain: t.arg.string(),
      subdomain: t.arg.string(),
      access: t.arg.string({ description: 'public or oauth' }),
      allowedEmails: t.arg.stringList(),
    },
    resolve: async (_root, args, ctx) => {
      const id = String(args.id);
      await updateTunnel(ctx.deps, actorOf(ctx), id, args);
      return getTunnel(ctx.deps, actorOf(ctx), id);
    },
  }),
  deleteTunnel: t.boolean({
    authScopes: { signedIn: true },
    tokenScopes: TOKEN_REACH.tunnelsWrite,
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => {
      await deleteTunnel(ctx.deps, actorOf(ctx), String(args.id));
      return true;
    },
  }),
}));
