// An organization's webhook endpoints on the graph (API.md section 18): `Organization.webhooks`
// and `Organization.webhook(id)` (with `deliveries(first)`), and the section 15 mutations with the
// organization's slug, for its admins and owners. Sessions only: the fields opt out of the
// Organization type's default reach and the mutations declare none, so no token reaches them.
import { arrayConnection } from '../connections.js';
import { orgWebhookOwner } from '../../../domain/orgs/org-webhooks.js';
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listWebhooks,
  MAX_WEBHOOKS,
  retryDelivery,
  rotateWebhookSecret,
  sendTestEvent,
  updateWebhook,
} from '../../../domain/webhooks/endpoints.js';
import { builder } from '../builder.js';
import { TOKEN_REACH } from '../field-policy.js';
import { actorOf, type GraphQLContext } from '../context.js';
import { OrganizationRef } from './organization.js';
import { CreatedWebhookRef, WebhookRef, webhookUpdate } from './webhooks.js';

const ownerOf = (ctx: GraphQLContext, slug: string) => orgWebhookOwner(ctx.deps, actorOf(ctx), slug);

builder.objectField(OrganizationRef, 'webhooks', (t) =>
  t.connection(
    {
      type: WebhookRef,
      tokenScopes: TOKEN_REACH.none,
      description: 'The organization’s webhook endpoints, oldest first. Admins and owners.',
      resolve: async (org, args, ctx) => arrayConnection(await listWebhooks(ctx.deps, (await ownerOf(ctx, org.slug)).accountId), args, MAX_WEBHOOKS),
    },
    { name: 'OrganizationWebhookConnection' },
    { name: 'OrganizationWebhookEdge' },
  ),
);

builder.objectField(OrganizationRef, 'webhook', (t) =>
  t.field({
    type: WebhookRef,
    tokenScopes: TOKEN_REACH.none,
    description: 'One of the organization’s endpoints (NOT_FOUND for another’s). Admins and owners.',
    args: { id: t.arg.id({ required: true }) },
    resolve: async (org, args, ctx) => getWebhook(ctx.deps, (await ownerOf(ctx, org.slug)).accountId, String(args.id)),
  }),
);

builder.mutationFields((t) => ({
  createOrganizationWebhook: t.field({
    type: CreatedWebhookRef,
    authScopes: { signedIn: true },
    description: 'Adds an endpoint of the organization (admins and owners; at most 10; a recent sign-in, REAUTH_REQUIRED). Its events: the tunnel and card events of its tunnels, and org.member.',
    args: {
      slug: t.arg.string({ required: true }),
      url: t.arg.string({ required: true }),
      events: t.arg.stringList({ required: true }),
      description: t.arg.string({ required: false }),
    },
    resolve: async (_root, args, ctx) => {
      const created = await createWebhook(ctx.deps, await ownerOf(ctx, args.slug), args);
      return { secret: created.secret, webhook: created.row };
    },
  }),
  updateOrganizationWebhook: t.field({
    type: WebhookRef,
    authScopes: { signedIn: true },
    description: 'Changes an endpoint of the organization. A new url or events, or turning it back on, needs a recent sign-in.',
    args: {
      slug: t.arg.string({ required: true }),
      id: t.arg.id({ required: true }),
      url: t.arg.string({ required: false }),
      events: t.arg.stringList({ required: false }),
      description: t.arg.string({ required: false }),
      enabled: t.arg.boolean({ required: false }),
    },
    resolve: async (_root, args, ctx) => updateWebhook(ctx.deps, await ownerOf(ctx, args.slug), String(args.id), webhookUpdate(args)),
  }),
  deleteOrganizationWebhook: t.boolean({
    authScopes: { signedIn: true },
    args: { slug: t.arg.string({ required: true }), id: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => {
      await deleteWebhook(ctx.deps, await ownerOf(ctx, args.slug), String(args.id));
      return true;
    },
  }),
  rotateOrganizationWebhookSecret: t.string({
    authScopes: { signedIn: true },
    description: 'A new signing secret, shown once; for 24 hours deliveries carry signatures of both.',
    args: { slug: t.arg.string({ required: true }), id: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => rotateWebhookSecret(ctx.deps, await ownerOf(ctx, args.slug), String(args.id)),
  }),
  sendOrganizationWebhookTest: t.string({
    authScopes: { signedIn: true },
    description: 'Queues a `webhook.test` event for this endpoint of the organization; answers its event id.',
    args: { slug: t.arg.string({ required: true }), id: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => sendTestEvent(ctx.deps, (await ownerOf(ctx, args.slug)).accountId, String(args.id)),
  }),
  retryOrganizationWebhookDelivery: t.boolean({
    authScopes: { signedIn: true },
    description: 'Sends a delivery to an endpoint of the organization again now (by the id of any of its attempts).',
    args: { slug: t.arg.string({ required: true }), id: t.arg.id({ required: true }), deliveryId: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => {
      await retryDelivery(ctx.deps, (await ownerOf(ctx, args.slug)).accountId, String(args.id), String(args.deliveryId));
      return true;
    },
  }),
}));
