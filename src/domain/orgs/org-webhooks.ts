// An organization's webhook endpoints (API.md section 18): section 15 whole, for its admins and
// owners, on endpoints whose account is the organization's. They receive the events of its
// tunnels (written under its id by the change seam) and `org.member` (joined, left, removed,
// role changed: members.ts); `account.security` names a person's activity and is not theirs to
// subscribe to. Every change is in the audit log (`webhook_changed`); a notice about an endpoint
// (disabled after five days of failures) goes to the owners and admins (webhooks/delivery.ts).
// The flows are the webhooks area's (webhooks/endpoints.ts), given the organization as the owner.
import type { DomainDeps } from '../context.js';
import { WEBHOOK_EVENT_TYPES } from '../activity/webhook-events.js';
import { orgAccess, type Actor } from '../membership/access.js';
import { recordAudit } from '../membership/audit.js';
import type { WebhookOwner } from '../webhooks/endpoints.js';

/** What an organization's endpoints may subscribe to: everything but a person's security activity. */
export const ORG_WEBHOOK_EVENTS = WEBHOOK_EVENT_TYPES.filter((e) => e !== 'account.security');

/** The organization named `slug` as the owner of the endpoints, when the actor manages them (404 for a non-member, 403 without the role). */
export async function orgWebhookOwner(deps: Pick<DomainDeps, 'db'>, actor: Actor, slug: string): Promise<WebhookOwner> {
  const scope = await orgAccess(deps, actor, slug, 'webhooks.manage');
  return {
    accountId: scope.org.id,
    viewer: actor.viewer,
    client: actor.client,
    events: ORG_WEBHOOK_EVENTS,
    record: (tx, _change, w) =>
      recordAudit(
        tx,
        scope.org.id,
        actor,
        'webhook_changed',
        { action: w.action, webhook_id: w.webhookId, host: w.host, ...(w.events ? { events: w.events } : {}), ...(w.changed ? { changed: w.changed } : {}) },
        w.at,
      ),
  };
}
