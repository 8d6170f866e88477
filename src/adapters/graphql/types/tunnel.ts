// Tunnels: the Tunnel type, `me.tunnels`, `tunnel(id)` and the tunnel mutations. Owner only:
// another account's tunnel answers NOT_FOUND, like a missing one.
import { noSuchTunnel } from '../../../domain/errors.js';
import { tunnelHost, tunnelHostSuffix } from '../../../domain/tunnels/names.js';
import { createTunnel, deleteTunnel, updateTunnel } from '../../../domain/tunnels/tunnels.js';
import { builder } from '../builder.js';
import { AccountRef } from './account.js';

export const TunnelRef = builder.prismaObject('Tunnel', {
  fields: (t) => ({
    id: t.exposeID('id'),
    subdomain: t.exposeString('subdomain'),
    host: t.string({
      description: 'The public host: <subdomain>--<account slug>.ZONE',
      select: { subdomain: true, account: { select: { slug: true } } },
      resolve: (tunnel, _args, ctx) => tunnelHost(tunnel.subdomain, tunnel.account.slug, ctx.deps.config.zone),
    }),
    url: t.string({
      description: 'The MCP endpoint: https://<host>/mcp',
      select: { subdomain: true, account: { select: { slug: true } } },
      resolve: (tunnel, _args, ctx) => `https://${tunnelHost(tunnel.subdomain, tunnel.account.slug, ctx.deps.config.zone)}/mcp`,
    }),
    customDomain: t.exposeString('customDomain', { nullable: true }),
    discoverable: t.exposeBoolean('discoverable', { description: 'When true, the Server Card is served.' }),
    pinnedTools: t.exposeStringList('pinnedTools', { description: 'Tool names captured from tools/list, in order.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

builder.objectField(AccountRef, 'tunnels', (t) =>
  t.prismaField({
    type: ['Tunnel'],
    resolve: (query, account, _args, ctx) =>
      ctx.deps.db.tunnel.findMany({ ...query, where: { accountId: account.id }, orderBy: { createdAt: 'asc' } }),
  }),
);

builder.objectField(AccountRef, 'tunnelHostSuffix', (t) =>
  t.string({
    description: "What follows a new tunnel's subdomain in its host: --<slug>.ZONE (the host is <subdomain>--<slug>.ZONE).",
    resolve: (account, _args, ctx) => tunnelHostSuffix(account.slug, ctx.deps.config.zone),
  }),
);

builder.queryField('tunnel', (t) =>
  t.prismaField({
    type: 'Tunnel',
    authScopes: { signedIn: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const tunnel = await ctx.deps.db.tunnel.findFirst({ ...query, where: { id: String(args.id), accountId: ctx.viewer!.accountId } });
      if (!tunnel) throw noSuchTunnel();
      return tunnel;
    },
  }),
);

builder.mutationFields((t) => ({
  createTunnel: t.prismaField({
    type: 'Tunnel',
    authScopes: { signedIn: true },
    args: { subdomain: t.arg.string({ required: true }), customDomain: t.arg.string() },
    resolve: async (query, _root, args, ctx) => {
      const id = await createTunnel(ctx.deps, ctx.viewer!.accountId, args);
      return ctx.deps.db.tunnel.findUniqueOrThrow({ ...query, where: { id } });
    },
  }),
  updateTunnel: t.prismaField({
    type: 'Tunnel',
    authScopes: { signedIn: true },
    description: 'Changes the discoverable flag, the custom domain (null clears it) and/or the subdomain.',
    args: {
      id: t.arg.id({ required: true }),
      discoverable: t.arg.boolean(),
      customDomain: t.arg.string(),
      subdomain: t.arg.string(),
    },
    resolve: async (query, _root, args, ctx) => {
      const id = String(args.id);
      await updateTunnel(ctx.deps, ctx.viewer!.accountId, id, args);
      return ctx.deps.db.tunnel.findUniqueOrThrow({ ...query, where: { id } });
    },
  }),
  deleteTunnel: t.boolean({
    authScopes: { signedIn: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => {
      await deleteTunnel(ctx.deps, ctx.viewer!.accountId, String(args.id));
      return true;
    },
  }),
}));
