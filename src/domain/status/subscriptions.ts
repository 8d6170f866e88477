// Email subscriptions to the status page (API.md section 17): double opt-in, a notice to every
// confirmed subscriber for each incident, incident update and maintenance, written to the outbox
// in the transaction of the change (never lost, sealed at rest), and one-click unsubscribe
// (RFC 8058) without signing in. Asking always answers the same, so it tells nobody who is
// subscribed; it is limited per network, and confirmation emails per address.
import type { DomainDeps, ClientInfo } from '../context.js';
import { normalizeEmail, parseEmail } from '../email-address.js';
import { statusIncident, statusSubscribeConfirm } from '../emails/messages.js';
import { badRequest, PROBLEMS } from '../errors.js';
import { consume, LIMITS, reserve } from '../limits/rate-limit.js';
import { networkOf } from '../network.js';
import { inTransaction, type Tx } from '../store.js';
import { generateToken, hashToken, isWellFormedToken } from '../../infra/crypto/tokens.js';
import { confirmSubscriber, deleteSubscriber, selectConfirmedSubscribers, upsertPendingSubscriber, type IncidentRow, type MaintenanceRow } from './store.js';

/** How long a confirmation link works. */
export const CONFIRM_LINK_MS = 24 * 3600_000;

export type SubscriptionDeps = Pick<DomainDeps, 'db' | 'cache' | 'clock' | 'outbox' | 'mailNotify' | 'mailContext' | 'cipher'> & {
  config: { baseUrl: string; zone: string };
};

/** The status page's origin: the zone host with the scheme and port of BASE_URL. */
export function zoneOrigin(config: { baseUrl: string; zone: string }): string {
  const base = new URL(config.baseUrl);
  return `${base.protocol}//${config.zone}${base.port ? `:${base.port}` : ''}`;
}

/** POST /status/subscribe: the same answer whatever the address; 429 past the network's limit. */
export async function subscribe(deps: SubscriptionDeps, rawEmail: unknown, client: ClientInfo): Promise<void> {
  // Counted first, like every limit: a refused request still counts.
  await reserve(deps.cache, LIMITS.statusSubscribePerNetwork, networkOf(client.ip) ?? client.ip, 'Too many subscription requests from this network. Try again later.');
  if (typeof rawEmail !== 'string') throw badRequest(PROBLEMS.invalidSubscription, '"email" must be a string.');
  const email = parseEmail(rawEmail);
  const emailNormalized = normalizeEmail(email);
  // Past three confirmation emails a day for one address, nothing more is sent (and nothing said).
  if (!(await consume(deps.cache, LIMITS.statusSubscribePerAddress, emailNormalized)).allowed) return;
  const now = deps.clock();
  const confirmToken = generateToken();
  const unsubscribeToken = generateToken();
  const expiresAt = new Date(now.getTime() + CONFIRM_LINK_MS);
  const queued = await inTransaction(deps.db, async (tx) => {
    const pending = await upsertPendingSubscriber(tx, {
      email,
      emailNormalized,
      confirmTokenHash: hashToken(confirmToken),
      confirmExpiresAt: expiresAt,
      unsubscribeTokenHash: hashToken(unsubscribeToken),
      unsubscribeToken: deps.cipher.seal(unsubscribeToken),
      at: now,
    });
    // Confirmed already: nothing to send (and the answer is the same).
    if (!pending) return false;
    await deps.outbox.enqueue(tx, email, statusSubscribeConfirm(deps.mailContext, zoneOrigin(deps.config), confirmToken), null, expiresAt);
    return true;
  });
  if (queued) deps.mailNotify();
}

/**
 * POST /status/subscribe/confirm (the button of the page the link opens; opening it confirms
 * nothing): true once; false for an unknown, used or expired link.
 */
export async function confirmSubscription(deps: Pick<SubscriptionDeps, 'db' | 'clock'>, token: unknown): Promise<boolean> {
  if (!isWellFormedToken(token)) return false;
  return confirmSubscriber(deps.db, hashToken(token), deps.clock());
}

/** POST /status/unsubscribe?token=…: removes the subscription; false when the token names none. */
export async function unsubscribe(deps: Pick<SubscriptionDeps, 'db'>, token: unknown): Promise<boolean> {
  if (!isWellFormedToken(token)) return false;
  return deleteSubscriber(deps.db, hashToken(token));
}

const STATUS_WORD: Record<string, string> = { investigating: 'Investigating', identified: 'Identified', monitoring: 'Monitoring', resolved: 'Resolved' };
const IMPACT_WORD: Record<string, string> = { minor: 'minor', major: 'major', critical: 'critical' };

export type Notice = { subject: string; lines: string[] };

/** A new incident, or an update to one (the newest update is what changed). */
export function incidentNotice(i: IncidentRow, isNew: boolean): Notice {
  // The update that set the incident's status (two written in one instant keep no order by time).
  const latest = i.updates.find((u) => u.status === i.status) ?? i.updates[0];
  const status = STATUS_WORD[i.status] ?? i.status;
  return {
    subject: isNew ? `${i.title} (${IMPACT_WORD[i.impact] ?? i.impact} impact)` : `${i.title}: ${status}`,
    lines: [`${status}: ${latest?.message ?? ''}`, `Affected: ${i.components.join(', ')}.`, `Posted ${(latest?.at ?? i.createdAt).toISOString()}.`],
  };
}

export function maintenanceNotice(m: MaintenanceRow): Notice {
  return {
    subject: `Planned maintenance: ${m.title}`,
    lines: [`From ${m.startsAt.toISOString()} to ${m.endsAt.toISOString()}.`, m.message, `Affected: ${m.components.join(', ')}.`],
  };
}

/**
 * Writes the notice for every confirmed subscriber in the caller's transaction, each with its own
 * unsubscribe link and List-Unsubscribe headers. The caller wakes the mail worker after commit.
 */
export async function enqueueNotices(deps: SubscriptionDeps, tx: Tx, notice: Notice): Promise<number> {
  const subscribers = await selectConfirmedSubscribers(tx);
  const origin = zoneOrigin(deps.config);
  for (const s of subscribers) {
    await deps.outbox.enqueue(tx, s.email, statusIncident(deps.mailContext, origin, deps.cipher.open(s.unsubscribeToken), notice), null);
  }
  return subscribers.length;
}
