// What drops cached cards: every tunnel change that can alter a card (tunnels announce the hosts
// before and after), an account slug rename (every host of the account moves, and the card's
// title and name carry the slug) and an account deletion (its tunnels are gone, known by id).
// Domain events run after the commit and are awaited, so the next request sees the change.
import type { Logger } from 'pino';
import type { Db } from '../store.js';
import { selectTunnelNames } from '../tunnels/store.js';
import type { DomainEvents } from '../events.js';
import { cardHostsOf, tunnelHost } from '../tunnels/names.js';
import type { CardResolver } from './resolver.js';

/** Wires the invalidations; resolves once the subscription is live (or has failed, logged). */
export function wireCardInvalidation(
  deps: { db: Db; events: DomainEvents; logger: Logger; config: { zone: string } },
  resolver: CardResolver,
): Promise<void> {
  const zone = deps.config.zone;
  const subscribed = resolver.start().catch((err: unknown) => {
    deps.logger.error({ err: (err as Error).message }, 'card invalidation subscription failed; in-process card cache off');
  });

  deps.events.on('tunnel.changed', ({ tunnelId, hosts }) => resolver.invalidate(hosts, [tunnelId]));

  deps.events.on('account.slugChanged', async ({ accountId, oldSlug, newSlug }) => {
    const tunnels = await selectTunnelNames(deps.db, accountId);
    if (tunnels.length === 0) return;
    const hosts = tunnels.flatMap((t) => [...cardHostsOf(t, oldSlug, zone), tunnelHost(t.subdomain, newSlug, zone)]);
    await resolver.invalidate(hosts, tunnels.map((t) => t.id));
  });

  deps.events.on('account.deleted', async ({ tunnelIds }) => {
    if (tunnelIds.length > 0) await resolver.invalidate([], tunnelIds);
  });
  return subscribed;
}
