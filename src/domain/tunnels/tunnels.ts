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

export interface TunnelsDeps {
  db: Db;
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
  try {
    const created = await deps.db.tunnel.create({
      data: { accountId, subdomain: input.subdomain, customDomain },
      select: OWNED,
    });
    // Not discoverable yet, so no card changes; announcing still drops any negative entry.
    await announce(deps, created.id, cardHostsOf(created, created.account.slug, deps.config.zone));
    return created.id;
  } catch (err) {
    return uniqueConflict(err);
  }
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
  try {
    after = await deps.db.tunnel.update({ where: { id: before.id }, data, select: OWNED });
  } catch (err) {
    return uniqueConflict(err);
  }
  const zone = deps.config.zone;
  await announce(deps, id, [...cardHostsOf(before, before.account.slug, zone), ...cardHostsOf(after, after.account.slug, zone)]);
}

export async function deleteTunnel(deps: TunnelsDeps, accountId: string, id: string): Promise<void> {
  const tunnel = await findOwned(deps, accountId, id);
  const { count } = await deps.db.tunnel.deleteMany({ where: { id: tunnel.id, accountId } });
  if (count === 0) throw noSuchTunnel();
  await announce(deps, id, cardHostsOf(tunnel, tunnel.account.slug, deps.config.zone));
}

