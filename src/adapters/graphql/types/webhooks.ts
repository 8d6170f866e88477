// Webhooks on the graph (API.md section 15): `me.webhooks` with `deliveries(first)`, the
// endpoint's delivery log, and the mutations. Only a session reaches these
// (nothing here declares tokenScopes: no token reaches it).
import { readableDeliveryError } from '../../../domain/webhooks/delivery-errors.js';
import type { AttemptView, WebhookRow } from '../../../domain/webhooks/store.js';
import {
  createWebhook,
  deleteWebhook,
  listDeliveries,
  listWebhooks,
  personalOwner,
  retryDelivery,
  rotateWebhookSecret,
  sendTestEvent,
  updateWebhook,
  type WebhookInput,
} from '../../../domain/webhooks/endpoints.js';
import { builder } from '../builder.js';
import { AccountRef } from './account.js';

export const WebhookDeliveryRef = builder.objectRef<AttemptView>('WebhookDelivery').implement({
  description: 'One delivery attempt of an event to an endpoint.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'The attempt; retrying it sends its event to the endpoint again.' }),
    deliveryId: t.exposeID('deliveryId', { description: 'The event on its way to this endpoint (shared by its attempts).' }),
    eventId: t.exposeString('eventId', { description: 'The `webhook-id` header: the same on every attempt.' }),
    type: t.exposeString('type'),
    attempt: t.exposeInt('attempt', { description: '1 for the first attempt.' }),
    statusCode: t.exposeInt('statusCode', { nullable: true, description: "The endpoint's HTTP status; null when none came (refused address, timeout, connection failure)." }),
    error: t.string({
      nullable: true,
      description: 'Why the attempt failed; null on success (a 2xx within the time bound).',
      // In words, attempts recorded before the words were stored included (delivery-errors.ts).
      resolve: (d) => readableDeliveryError(d.error),
    }),
    durationMs: t.exposeInt('durationMs'),
    at: t.expose('at', { type: 'DateTime' }),
    nextAttemptAt: t.expose('nextAttemptAt', { type: 'DateTime', nullable: true, description: 'When the delivery is tried again; null when it succeeded or no attempt is left.' }),
  }),
});

/** An update's fields: absent and null are told apart (null clears nothing and is refused where it means nothing). */
export const webhookUpdate = (args: { url?: string | null; events?: readonly string[] | null; description?: string | null; enabled?: boolean | null }): WebhookInput => ({
  ...(args.url !== undefined ? { url: args.url } : {}),
  ...(args.events !== undefined ? { events: args.events } : {}),
  ...(args.description !== undefined ? { description: args.description } : {}),
  ...(args.enabled !== undefined ? { enabled: args.enabled } : {}),
});

export const WebhookRef = builder.objectRef<WebhookRow>('Webhook').implement({
  description: 'An endpoint that receives signed events (Standard Webhooks 1.0).',
  fields: (t) => ({
    id: t.exposeID('id'),
    url: t.exposeString('url'),
    events: t.exposeStringList('events'),
    description: t.exposeString('description'),
    enabled: t.exposeBoolean('enabled'),
    disabledReason: t.exposeString('disabledReason', { nullable: true, description: '`failing`: turned off by the service after five days of failed deliveries.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    deliveries: t.field({
      type: [WebhookDeliveryRef],
      description: 'Delivery attempts, newest first.',
      args: { first: t.arg.int({ required: false, description: '1–100, default 50.' }) },
      // The endpoint's own account: it was reached through its owner (me.webhooks, or an organization the caller manages).
      resolve: (w, args, ctx) => listDeliveries(ctx.deps, w.accountId, w.id, args.first),
    }),
  }),
});

export const CreatedWebhookRef = builder.objectRef<{ secret: string; webhook: WebhookRow }>('CreatedWebhook').implement({
  fields: (t) => ({
    secret: t.exposeString('secret', { description: 'The signing secret (`whsec_…`): shown in this answer only.' }),
    webhook: t.field({ type: WebhookRef, resolve: (c) => c.webhook }),
  }),
});

builder.objectField(AccountRef, 'webhooks', (t) =>
  t.field({
    type: [WebhookRef],
    description: 'Webhook endpoints, oldest first.',
    resolve: (account, _args, ctx) => listWebhooks(ctx.deps, account.id),
  }),
);

builder.queryField('webhookDeliveries', (t) =>
  t.field({
    type: [WebhookDeliveryRef],
    description: "One endpoint's delivery attempts, newest first (NOT_FOUND for another account's).",
    authScopes: { signedIn: true },
    args: { webhookId: t.arg.id({ required: true }), first: t.arg.int({ required: false, description: '1–100, default 50.' }) },
    resolve: (_root, args, ctx) => listDeliveries(ctx.deps, ctx.viewer!.accountId, String(args.webhookId), args.first),
  }),
);

builder.mutationFields((t) => ({
  createWebhook: t.field({
    type: CreatedWebhookRef,
    description: 'Adds an endpoint (at most 10); needs a recent sign-in (REAUTH_REQUIRED).',
    authScopes: { signedIn: true },
    args: {
      url: t.arg.string({ required: true }),
      events: t.arg.stringList({ required: true }),
      description: t.arg.string({ required: false }),
    },
    resolve: async (_root, args, ctx) => {
      const created = await createWebhook(ctx.deps, personalOwner(ctx.viewer!, ctx.client), args);
      return { secret: created.secret, webhook: created.row };
    },
  }),
  updateWebhook: t.field({
    type: WebhookRef,
    description: 'Changes an endpoint. A new url or events, or turning it back on, needs a recent sign-in.',
    authScopes: { signedIn: true },
    args: {
      id: t.arg.id({ required: true }),
      url: t.arg.string({ required: false }),
      events: t.arg.stringList({ required: false }),
      description: t.arg.string({ required: false }),
      enabled: t.arg.boolean({ required: false }),
    },
    resolve: (_root, args, ctx) =>
      updateWebhook(ctx.deps, personalOwner(ctx.viewer!, ctx.client), String(args.id), webhookUpdate(args)),
  }),
  deleteWebhook: t.boolean({
    authScopes: { signedIn: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => {
      await deleteWebhook(ctx.deps, personalOwner(ctx.viewer!, ctx.client), String(args.id));
      return true;
    },
  }),
  rotateWebhookSecret: t.string({
    description: 'A new signing secret, shown once; for 24 hours deliveries carry signatures of both.',
    authScopes: { signedIn: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => rotateWebhookSecret(ctx.deps, personalOwner(ctx.viewer!, ctx.client), String(args.id)),
  }),
  sendWebhookTest: t.string({
    description: 'Queues a `webhook.test` event for this endpoint, whatever it subscribes to; answers its event id.',
    authScopes: { signedIn: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => sendTestEvent(ctx.deps, ctx.viewer!.accountId, String(args.id)),
  }),
  retryWebhookDelivery: t.boolean({
    description: 'Sends a delivery again now (by the id of any of its attempts).',
    authScopes: { signedIn: true },
    args: { id: t.arg.id({ required: true }), deliveryId: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => {
      await retryDelivery(ctx.deps, ctx.viewer!.accountId, String(args.id), String(args.deliveryId));
      return true;
    },
  }),
}));
