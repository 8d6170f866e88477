// Tunnel management for the owner (API.md section 4): create, update (discoverable flag, custom
// domain, subdomain), delete. Another account's tunnel is indistinguishable from a missing one. Every change
// that can alter a card announces the card hosts it touches (before and after) on
// `tunnel.changed`, after the commit, so the card cache drops them before the reply goes out.
import type { Config } from '../../infra/config.js';
import type { Db } from '../../infra/db/client.js';
import { violates } from '../../infra/db/errors.js';
import { badRequest, conflict, noSuchTunnel } from '../errors.js';
import type { DomainEvents } from '../events.js';
import { assertValidSubdomain, cardHostsOf, normalizeCustomDomain } from './names.js';
import { claimName, releaseNames } from './released-names.js';

export interface TunnelsDeps {
  db: Db;
  clock: () => Date;
  events: DomainEvents;
  config: Pick<Config, 'zone' | 'apiHostname'>;
}

export interface TunnelUpdate {
  discoverable?: boolean | null;
  /** Renames the tunnel (its host moves); beyond API.md's PATCH fields, for the dashboard. */
  subdomain?: string | null;
  /** null clears it; undefined leaves it. */
  customDomain?: string | null;
}

/** Tunnels per account: every list the API returns stays bounded. */
export const MAX_TUNNELS = 100;

const OWNED = { id: true, subdomain: true, customDomain: true, discoverable: true, account: { select: { slug: true } } } as const;

function uniqueConflict(err: unknown): never {
  if (violates(err, 'custom_domain', 'customDomain')) throw conflict('That custom domain is already in use.');
  if (violates(err, 'subdomain')) throw conflict('You already have a tunnel with that subdomain.');
  throw err;
}

async function findOwned(deps: TunnelsDeps, accountId: string, id: string) {
  const tunnel = await deps.db.tunnel.findFirst({ where: { id, accountId }, select: OWNED });
  if (!tunnel) throw noSuchTunnel();
  return tunnel;
}

async function announce(deps: TunnelsDeps, tunnelId: string, hosts: string[]): Promise<void> {
  await deps.events.emit('tunnel.changed', { tunnelId, hosts: [...new Set(hosts)] });
}

/** Returns the new tunnel's id. */
export async function createTunnel(
  deps: TunnelsDeps,
  accountId: string,
  input: { subdomain: unknown; customDomain?: unknown },
): Promise<string> {
  assertValidSubdomain(input.subdomain);
  const customDomain =
    input.customDomain === undefined || input.customDomain === null ? null : normalizeCustomDomain(input.customDomain, deps.config);
  const subdomain = input.subdomain;
  const now = deps.clock();
  let created;
  try {
    // One transaction: the domain claim, the count and the row commit together or not at all.
    created = await deps.db.$transaction(async (tx) => {
      if (customDomain) await claimName(tx, 'domain', customDomain, accountId, now);
      // The cap holds under concurrent requests: the conditional increment is re-checked on the
      // latest row version, so at most MAX_TUNNELS reservations ever succeed.
      const reserved = await tx.account.updateMany({
        where: { id: accountId, tunnelCount: { lt: MAX_TUNNELS } },
        data: { tunnelCount: { increment: 1 } },
      });
      if (reserved.count === 0) throw conflict(`An account can have at most ${MAX_TUNNELS} tunnels; delete one first.`);
      return tx.tunnel.create({ data: { accountId, subdomain, customDomain }, select: OWNED });
    });
  } catch (err) {
    return uniqueConflict(err);
  }
  // Not discoverable yet, so no card changes; announcing still drops any negative entry.
  await announce(deps, created.id, cardHostsOf(created, created.account.slug, deps.config.zone));
  return created.id;
}

export async function updateTunnel(deps: TunnelsDeps, accountId: string, id: string, input: TunnelUpdate): Promise<void> {
  if (input.discoverable === null) throw badRequest('"discoverable" must be a boolean.');
  if (input.subdomain !== undefined) assertValidSubdomain(input.subdomain);
  const before = await findOwned(deps, accountId, id);
  const data: { discoverable?: boolean; subdomain?: string; customDomain?: string | null } = {};
  if (input.discoverable !== undefined) data.discoverable = input.discoverable;
  if (input.subdomain !== undefined) data.subdomain = input.subdomain;
  if (input.customDomain !== undefined) {
    data.customDomain = input.customDomain === null ? null : normalizeCustomDomain(input.customDomain, deps.config);
  }
  if (Object.keys(data).length === 0) return;
  let after: typeof before;
  const now = deps.clock();
  try {
    after = await deps.db.$transaction(async (tx) => {
      if (data.customDomain && data.customDomain !== before.customDomain) {
        await claimName(tx, 'domain', data.customDomain, accountId, now);
      }
      const updated = await tx.tunnel.update({ where: { id: before.id }, data, select: OWNED });
      if (before.customDomain && before.customDomain !== updated.customDomain) {
        await releaseNames(tx, 'domain', [before.customDomain], accountId, now);
      }
      return updated;
    });
  } catch (err) {
    return uniqueConflict(err);
  }
  const zone = deps.config.zone;
  await announce(deps, id, [...cardHostsOf(before, before.account.slug, zone), ...cardHostsOf(after, after.account.slug, zone)]);
}

export async function deleteTunnel(deps: TunnelsDeps, accountId: string, id: string): Promise<void> {
  const tunnel = await findOwned(deps, accountId, id);
  await deps.db.$transaction(async (tx) => {
    // The hold is written before the row goes, under the name's lock: no claim can slip between.
    if (tunnel.customDomain) await releaseNames(tx, 'domain', [tunnel.customDomain], accountId, deps.clock());
    const { count } = await tx.tunnel.deleteMany({ where: { id: tunnel.id, accountId } });
    if (count === 0) throw noSuchTunnel();
    await tx.account.updateMany({ where: { id: accountId }, data: { tunnelCount: { decrement: 1 } } });
  });
  await announce(deps, id, cardHostsOf(tunnel, tunnel.account.slug, deps.config.zone));
}

