// The tunnel's webhook events (API.md section 15), written through the change seam in the
// transaction of the change: tunnel.created, .updated, .deleted and .tools_changed carry the
// tunnel as the REST API shows it (section 4); card.published and card.unpublished say when the
// card starts or stops answering 200, which is when `discoverable` turns (a discoverable
// tunnel's deletion unpublishes it).
import type { AccountChange } from '../activity/account-change.js';
import type { OwnedTunnel } from './store.js';
import { cardHostsOf, tunnelHost } from './names.js';
import { viewJson, viewOf } from './tunnel-view.js';

/** The tunnel as GET /api/tunnels/<id> shows it. */
const tunnelData = (t: OwnedTunnel, zone: string): Record<string, unknown> => viewJson(viewOf(t, zone));

function cardData(t: OwnedTunnel, zone: string): Record<string, unknown> {
  return {
    tunnel_id: t.id,
    host: tunnelHost(t.subdomain, t.account.slug, zone),
    custom_domain: t.customDomain,
    card_urls: cardHostsOf(t, t.account.slug, zone).map((h) => `https://${h}/.well-known/mcp/server-card.json`),
  };
}

const FIELDS = ['subdomain', 'customDomain', 'discoverable', 'access', 'allowedEmails'] as const;
const SNAKE: Record<(typeof FIELDS)[number], string> = {
  subdomain: 'subdomain',
  customDomain: 'custom_domain',
  discoverable: 'discoverable',
  access: 'access',
  allowedEmails: 'allowed_emails',
};

const same = (a: unknown, b: unknown) => (Array.isArray(a) && Array.isArray(b) ? a.length === b.length && a.every((v, i) => v === b[i]) : a === b);

export async function tunnelCreated(change: AccountChange, t: OwnedTunnel, zone: string, at: Date): Promise<void> {
  await change.publish('tunnel.created', { tunnel: tunnelData(t, zone) }, at);
}

/** tunnel.updated with the fields that changed (nothing when none did), and the card's turn if any. */
export async function tunnelUpdated(change: AccountChange, before: OwnedTunnel, after: OwnedTunnel, zone: string, at: Date): Promise<void> {
  const changed = FIELDS.filter((f) => !same(before[f], after[f])).map((f) => SNAKE[f]);
  if (changed.length === 0) return;
  await change.publish('tunnel.updated', { tunnel: tunnelData(after, zone), changed }, at);
  if (!before.discoverable && after.discoverable) await change.publish('card.published', cardData(after, zone), at);
  if (before.discoverable && !after.discoverable) await change.publish('card.unpublished', cardData(before, zone), at);
}

export async function tunnelDeleted(change: AccountChange, t: OwnedTunnel, zone: string, at: Date): Promise<void> {
  await change.publish('tunnel.deleted', { tunnel: tunnelData(t, zone) }, at);
  if (t.discoverable) await change.publish('card.unpublished', cardData(t, zone), at);
}

export async function toolsChanged(change: AccountChange, t: OwnedTunnel, previous: readonly string[], zone: string, at: Date): Promise<void> {
  await change.publish(
    'tunnel.tools_changed',
    { tunnel_id: t.id, host: tunnelHost(t.subdomain, t.account.slug, zone), pinned_tools: t.pinnedTools, previous_tools: previous },
    at,
  );
}
