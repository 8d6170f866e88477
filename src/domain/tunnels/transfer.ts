// Moving a tunnel between its owners (API.md section 18): from an account to an organization, back,
// or between organizations, when the caller may delete it where it is and create it where it goes.
// Its host changes with its owner's slug (the old one answers 404 at once, on every instance, as
// for a deletion), its custom domain stays with it, and its OAuth grants are revoked: they were
// given for a tunnel whose owner decided who could reach it. The old owner's webhooks see
// `tunnel.deleted`, the new owner's `tunnel.created`; an organization on either side records
// `tunnel_transferred` in its audit log.
import type { DomainDeps } from '../context.js';
import { changeIn } from '../activity/account-change.js';
import { conflict, invalidInput, noSuchTunnel, PROBLEMS } from '../errors.js';
import { violates } from '../../infra/db/errors.js';
import { inTransaction } from '../store.js';
import { orgAccess, type Actor, type OrgScope } from '../membership/access.js';
import { tunnelAccess } from './tunnel-access.js';
import { recordAudit } from '../membership/audit.js';
import { deleteTunnelGrants } from '../oauth-revocation/store.js';
import { cardHostsOf, mcpUrlsOf } from './names.js';
import { moveTunnelRow, releaseTunnelSlot, reserveTunnelSlot } from './store.js';
import { tunnelCreated, tunnelDeleted } from './tunnel-events.js';
import { tunnelCap } from './tunnels.js';

type FlowDeps = Pick<DomainDeps, 'clock' | 'db' | 'events' | 'outbox' | 'mailNotify' | 'webhookNotify'> & { config: { zone: string } };

/** Moves tunnel `id` to `to`: an organization's slug, or "me" (the caller's own account). */
export async function transferTunnel(deps: FlowDeps, actor: Actor, id: string, to: unknown): Promise<void> {
  if (typeof to !== 'string' || to === '') throw invalidInput(PROBLEMS.invalidTunnelSettings, 'to', 'Name where the tunnel goes: an organization’s slug, or "me".');
  const { tunnel, org: from } = await tunnelAccess(deps, actor, id, 'tunnels.write');
  let target: OrgScope | null = null;
  if (to !== 'me') {
    target = await orgAccess(deps, actor, to, 'tunnels.create');
    // Who may reach it comes along: in an organization, only who may decide that may bring it
    // in (as creating it there with these settings would need).
    if (tunnel.access !== 'public' || tunnel.allowedEmails.length > 0) await orgAccess(deps, actor, to, 'tunnels.access');
  }
  const targetId = target ? target.org.id : actor.viewer.accountId;
  if (targetId === tunnel.accountId) return;
  const zone = deps.config.zone;
  const now = deps.clock();
  const before = tunnel;
  let moved;
  try {
    moved = await inTransaction(deps.db, async (tx) => {
      const cap = tunnelCap(target !== null);
      if (!(await reserveTunnelSlot(tx, targetId, cap))) throw conflict(PROBLEMS.tunnelLimit, `The new owner already has ${cap} tunnels, the most it may.`);
      const after = await moveTunnelRow(tx, id, before.accountId, targetId);
      // Moved or deleted meanwhile: what was decided on is gone.
      if (after === null) throw noSuchTunnel();
      await releaseTunnelSlot(tx, before.accountId);
      await deleteTunnelGrants(tx, id, mcpUrlsOf(before, before.account.slug, zone));
      const leaving = changeIn(tx, deps, before.accountId);
      const arriving = changeIn(tx, deps, targetId);
      await tunnelDeleted(leaving, before, zone, now);
      await tunnelCreated(arriving, after, zone, now);
      const detail = { tunnel_id: id, subdomain: before.subdomain, from: before.account.slug, to: after.account.slug };
      if (from) await recordAudit(tx, from.org.id, actor, 'tunnel_transferred', detail, now);
      if (target) await recordAudit(tx, target.org.id, actor, 'tunnel_transferred', detail, now);
      return { after, changes: [leaving, arriving] };
    });
  } catch (err) {
    if (violates(err, 'subdomain')) throw conflict(PROBLEMS.subdomainTaken, 'The new owner already has a tunnel with that subdomain.', 'subdomain');
    throw err;
  }
  for (const change of moved.changes) await change.committed();
  await deps.events.emit('tunnel.changed', { tunnelId: id, hosts: [...new Set([...cardHostsOf(before, before.account.slug, zone), ...cardHostsOf(moved.after, moved.after.account.slug, zone)])] });
}
