// The webhook events of API.md section 15, as the change seam writes them: in the transaction of
// the change that causes them, one event row and one pending delivery per enabled endpoint of the
// account that subscribes to its type, in one statement (nothing at all when none does). Delivery
// is the webhooks area's business (webhooks/delivery.ts): the request that caused the event only
// inserts these rows.
import type { DbHandle } from '../store.js';
import { insertWebhookEvent } from './store.js';

export const WEBHOOK_EVENT_TYPES = [
  'tunnel.created',
  'tunnel.updated',
  'tunnel.deleted',
  'tunnel.tools_changed',
  'card.published',
  'card.unpublished',
  'account.security',
  /** An organization's member joined, left or changed role (API.md section 18). */
  'org.member',
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** Delivered by "send a test event", whatever the endpoint subscribes to; not subscribable. */
export const TEST_EVENT_TYPE = 'webhook.test';

/** An event's `data`: JSON, never a credential. */
export type WebhookEventData = { [key: string]: unknown };

/** Writes the event for the account's subscribed endpoints; returns how many deliveries were queued. */
export function writeWebhookEvent(tx: DbHandle, accountId: string, type: WebhookEventType, data: WebhookEventData, at: Date): Promise<number> {
  return insertWebhookEvent(tx, accountId, type, data, at);
}
