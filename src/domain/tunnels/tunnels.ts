// Tunnel management (API.md section 4): create, update (discoverable flag, custom domain,
// subdomain, access), delete, for the owner, and for an organization's tunnels its members by
// role (section 18; who may is decided in membership/access.ts). Another account's tunnel is
// indistinguishable from a missing one. Every change that can alter a card announces the card
// hosts it touches (before and after) on `tunnel.changed`, after the commit, so the card cache
// drops them before the reply goes out. An organization's tunnel changes are in its audit log.
import type { Config } from '../../infra/config.js';
import type { Db } from '../store.js';
import type { DomainDeps } from '../context.js';
import { changeAccount } from '../activity/account-change.js';
import { tunnelCreated, tunnelDeleted, tunnelUpdated } from './tunnel-events.js';
import {
  deleteTunnelRow,
  insertTunnel,
  releaseTunnelSlot,
  reserveTunnelSlot,
  selectOwnerTunnels,
  selectTunnels,
  updateTunnelRow,
  type OwnedTunnel,
} from './store.js';
import { type Actor, type OrgScope } from '../membership/access.js';
import { tunnelAccess } from './tunnel-access.js';
import { recordAudit } from '../membership/audit.js';
import { violates } from '../../infra/db/errors.js';
import { conflict, invalidInput, noSuchTunnel, PROBLEMS } from '../errors.js';
import type { DomainEvents } from '../events.js';
import { assertValidSubdomain, cardHostsOf, mcpUrlsOf, normalizeCustomDomain } from './names.js';
import { claimName, releaseNames } from './released-names.js';
import { accessRule, parseAccess, parseAllowedEmails, type TunnelAccess } from './access.js';
import { viewOf, type TunnelView } from './tunnel-view.js';
import { deleteTunnelGrants } from '../oauth-revocation/store.js';

export type { TunnelView } from './tunnel-view.js';

export interface TunnelsDeps extends Pick<DomainDeps, 'outbox' | 'mailNotify' | 'webhookNotify'> {
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
  /** public or oauth (API.md section 13). */
  access?: string | null;
  /** Replaces the list; null clears it. */
  allowedEmails?: readonly string[] | null;
}

/** Tunnels per account: every list the API returns stays bounded. */
export const MAX_TUNNELS = 100;
/** Tunnels per organization. */
export const MAX_ORG_TUNNELS = 1000;
/** The cap of an owner. */
export const tunnelCap = (ownerIsOrg: boolean): number => (ownerIsOrg ? MAX_ORG_TUNNELS : MAX_TUNNELS);


function uniqueConflict(err: unknown): never {
  if (violates(err, 'custom_domain', 'customDomain')) throw conflict(PROBLEMS.customDomainTaken, 'That custom domain is already in use.', 'customDomain');
  if (violates(err, 'subdomain')) throw conflict(PROBLEMS.subdomainTaken, 'You already have a tunnel with that subdomain.', 'subdomain');
  throw err;
}

async function announce(deps: TunnelsDeps, tunnelId: string, hosts: string[]): Promise<void> {
  await deps.events.emit('tunnel.changed', { tunnelId, hosts: [...new Set(hosts)] });
}

/**
 * Returns the new tunnel's id. `ownerId` is the caller's account, or an organization the caller
 * may create tunnels in (`org`, from membership/access.ts), whose audit log records it.
 */
export async function createTunnel(
  deps: TunnelsDeps,
  ownerId: string,
  input: { subdomain: unknown; customDomain?: unknown; access?: unknown; allowedEmails?: unknown },
  org: OrgScope | null = null,
): Promise<string> {
  const accountId = ownerId;
  assertValidSubdomain(input.subdomain);
  const access = input.access === undefined || input.access === null ? 'public' : parseAccess(input.access);
  const allowedEmails = input.allowedEmails === undefined || input.allowedEmails === null ? [] : parseAllowedEmails(input.allowedEmails);
  const customDomain =
    input.customDomain === undefined || input.customDomain === null ? null : normalizeCustomDomain(input.customDomain, deps.config);
  const subdomain = input.subdomain;
  const now = deps.clock();
  let created;
  try {
    // One transaction: the domain claim, the count and the row commit together or not at all.
    created = await changeAccount(deps, accountId, async (tx, change) => {
      if (customDomain) await claimName(tx, 'domain', customDomain, accountId, now);
      // The cap holds under concurrent requests: the conditional increment is re-checked on the
      // latest row version, so at most MAX_TUNNELS reservations ever succeed.
      const cap = tunnelCap(org !== null);
      if (!(await reserveTunnelSlot(tx, accountId, cap))) throw conflict(PROBLEMS.tunnelLimit, `${org ? 'An organization' : 'An account'} can have at most ${cap} tunnels; delete one first.`);
      const tunnel = await insertTunnel(tx, { accountId, subdomain, customDomain, access, allowedEmails });
      await tunnelCreated(change, tunnel, deps.config.zone, now);
      if (org) await recordAudit(tx, org.org.id, org.actor, 'tunnel_created', { tunnel_id: tunnel.id, subdomain: tunnel.subdomain }, now);
      return tunnel;
    });
  } catch (err) {
    return uniqueConflict(err);
  }
  // Not discoverable yet, so no card changes; announcing still drops any negative entry.
  await announce(deps, created.id, cardHostsOf(created, created.account.slug, deps.config.zone));
  return created.id;
}

export async function updateTunnel(deps: TunnelsDeps, actor: Actor, id: string, input: TunnelUpdate): Promise<void> {
  if (input.discoverable === null) throw invalidInput(PROBLEMS.invalidTunnelSettings, 'discoverable', 'Discoverable is either on or off (true or false).');
  if (input.subdomain !== undefined) assertValidSubdomain(input.subdomain);
  if (input.access === null) throw accessRule();
  const changesAccess = input.access !== undefined || input.allowedEmails !== undefined;
  const { tunnel: before, org } = await tunnelAccess(deps, actor, id, changesAccess ? 'tunnels.access' : 'tunnels.write');
  const accountId = before.accountId;
  const data: { discoverable?: boolean; subdomain?: string; customDomain?: string | null; access?: TunnelAccess; allowedEmails?: string[] } = {};
  if (input.access !== undefined) data.access = parseAccess(input.access);
  if (input.allowedEmails !== undefined) data.allowedEmails = input.allowedEmails === null ? [] : parseAllowedEmails(input.allowedEmails);
  if (input.discoverable !== undefined) data.discoverable = input.discoverable;
  if (input.subdomain !== undefined) data.subdomain = input.subdomain;
  if (input.customDomain !== undefined) {
    data.customDomain = input.customDomain === null ? null : normalizeCustomDomain(input.customDomain, deps.config);
  }
  if (Object.keys(data).length === 0) return;
  let after: OwnedTunnel;
  const now = deps.clock();
  try {
    after = await changeAccount(deps, accountId, async (tx, change) => {
      if (data.customDomain && data.customDomain !== before.customDomain) {
        await claimName(tx, 'domain', data.customDomain, accountId, now);
      }
      const updated = await updateTunnelRow(tx, before.id, data);
      // Back to public: whoever was granted access loses it, for good (API.md section 13a).
      if (before.access === 'oauth' && updated.access !== 'oauth') await deleteTunnelGrants(tx, before.id, mcpUrlsOf(before, before.account.slug, deps.config.zone));
      if (before.customDomain && before.customDomain !== updated.customDomain) {
        await releaseNames(tx, 'domain', [before.customDomain], accountId, now);
      }
      await tunnelUpdated(change, before, updated, deps.config.zone, now);
      if (org && (before.access !== updated.access || before.allowedEmails.join() !== updated.allowedEmails.join())) {
        await recordAudit(tx, org.org.id, actor, 'tunnel_access_changed', { tunnel_id: id, access: updated.access, allowed_emails: updated.allowedEmails }, now);
      }
      return updated;
    });
  } catch (err) {
    return uniqueConflict(err);
  }
  const zone = deps.config.zone;
  await announce(deps, id, [...cardHostsOf(before, before.account.slug, zone), ...cardHostsOf(after, after.account.slug, zone)]);
}

export async function deleteTunnel(deps: TunnelsDeps, actor: Actor, id: string): Promise<void> {
  const { tunnel, org } = await tunnelAccess(deps, actor, id, 'tunnels.write');
  const accountId = tunnel.accountId;
  const now = deps.clock();
  await changeAccount(deps, accountId, async (tx, change) => {
    // The hold is written before the row goes, under the name's lock: no claim can slip between.
    if (tunnel.customDomain) await releaseNames(tx, 'domain', [tunnel.customDomain], accountId, now);
    if (!(await deleteTunnelRow(tx, accountId, tunnel.id))) throw noSuchTunnel();
    // Its grants go with it: a tunnel created later at the same URL starts with none (section 13a).
    await deleteTunnelGrants(tx, tunnel.id, mcpUrlsOf(tunnel, tunnel.account.slug, deps.config.zone));
    await releaseTunnelSlot(tx, accountId);
    await tunnelDeleted(change, tunnel, deps.config.zone, now);
    if (org) await recordAudit(tx, org.org.id, actor, 'tunnel_deleted', { tunnel_id: tunnel.id, subdomain: tunnel.subdomain }, now);
  });
  await announce(deps, id, cardHostsOf(tunnel, tunnel.account.slug, deps.config.zone));
}


/** The tunnels of an account or organization, oldest first. */
export async function listTunnels(deps: Pick<TunnelsDeps, 'db' | 'config'>, ownerId: string): Promise<TunnelView[]> {
  return (await selectTunnels(deps.db, ownerId)).map((t) => viewOf(t, deps.config.zone));
}

/**
 * An organization's tunnels (the caller's access decided), oldest first: this instance's copy
 * while the organization row read for this request still carries the version it was read at
 * (owner-lists.ts), else one statement.
 */
export async function listOrgTunnels(
  deps: Pick<DomainDeps, 'sql' | 'tunnelLists'> & { config: Pick<Config, 'zone'> },
  org: { id: string; slug: string; tunnelsVersion: bigint },
): Promise<readonly TunnelView[]> {
  const copy = deps.tunnelLists.get(org.id, org.tunnelsVersion, org.slug);
  if (copy !== undefined) return copy;
  const views = (await selectOwnerTunnels(deps.sql, { ...org, kind: 'org' })).map((t) => viewOf(t, deps.config.zone));
  return deps.tunnelLists.set(org.id, org.tunnelsVersion, org.slug, views);
}

/** A tunnel the actor may read; NOT_FOUND for an unknown one or one they may not see. */
export async function getTunnel(deps: Pick<TunnelsDeps, 'db' | 'config'>, actor: Actor, id: string): Promise<TunnelView> {
  return viewOf((await tunnelAccess(deps, actor, id, 'tunnels.read')).tunnel, deps.config.zone);
}
