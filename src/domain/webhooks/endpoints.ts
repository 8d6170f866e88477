// The account's webhook endpoints (API.md section 15): create (the secret answered once), list,
// change, delete, rotate the secret, send a test event, read the delivery log, retry a delivery.
// An endpoint is a way for the account's events to leave the service, so adding one, pointing
// it elsewhere, choosing other events, turning it back on and minting a new secret need a
// recently authenticated session (section 7a); renaming, turning off and deleting do not. The
// URL is checked at each of these and again at every delivery (no server-side request forgery).
// The endpoints are an owner's (WebhookOwner): a person's own, or an organization's (API.md
// section 18, orgs/org-webhooks.ts), which differ in the events they may subscribe to and in the
// log that records their changes (the person's activity, the organization's audit log).
import { randomUUID } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { changeAccount, type AccountChange } from '../activity/account-change.js';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../activity/webhook-events.js';
import type { ClientInfo, DomainDeps, Viewer } from '../context.js';
import { conflict, invalidInput, notFound, PROBLEMS } from '../errors.js';
import { isUuid } from '../ids.js';
import { LIMITS, reserve } from '../limits/rate-limit.js';
import { inTransaction, type Tx } from '../store.js';
import { requireRecentAuth } from '../sessions/recent-auth.js';
import { classifyAddress } from '../../infra/net/public-address.js';
import { checkedTarget, RefusedUrl } from '../../infra/net/public-fetch.js';
import { generateWebhookSecret } from './signing.js';
import {
  deleteWebhookRow,
  insertTestEvent,
  insertWebhookRow,
  listAttempts,
  listWebhookRows,
  lockAndCountWebhooks,
  readWebhookRow,
  requeueDelivery,
  rotateSecretRow,
  updateWebhookRow,
  type AttemptView,
  type WebhookRow,
} from './store.js';

type FlowDeps = Pick<DomainDeps, 'cache' | 'clock' | 'db' | 'events' | 'mailNotify' | 'outbox' | 'policy' | 'webhookNotify' | 'cipher'>;

/** Endpoints per account. */
export const MAX_WEBHOOKS = 10;
/** How long the replaced secret keeps signing after a rotation. */
export const PREVIOUS_SECRET_MS = 24 * 3600_000;
const URL_MAX = 2000;
const DESCRIPTION_MAX = 500;

export interface WebhookInput {
  url?: unknown;
  events?: unknown;
  description?: unknown;
  enabled?: unknown;
}

const noSuchWebhook = () => notFound(PROBLEMS.webhookNotFound, 'No such webhook.');

/** What a person's endpoints may subscribe to: everything but an organization's member events. */
export const PERSONAL_WEBHOOK_EVENTS = WEBHOOK_EVENT_TYPES.filter((e) => e !== 'org.member');

/** A change to an endpoint, as its owner's log records it. */
export interface WebhookChange {
  action: 'created' | 'updated' | 'deleted' | 'secret_rotated';
  webhookId: string;
  /** The URL's host only: a receiver's path often carries its own secret. */
  host: string;
  /** Created: its events; updated: the fields set. */
  events?: readonly string[];
  changed?: readonly string[];
  at: Date;
}

/** Whose endpoints, who acts on them, what they may subscribe to, and how their changes are recorded. */
export interface WebhookOwner {
  /** The account the endpoints belong to: the person's own, or an organization's. */
  accountId: string;
  /** Who acts (the recent authentication is theirs), and from where. */
  viewer: Viewer;
  client: ClientInfo;
  events: readonly WebhookEventType[];
  /** Records a change in the owner's log, in the change's transaction. */
  record(tx: Tx, change: AccountChange, what: WebhookChange): Promise<void>;
}

/** A person's own endpoints: additions and deletions are in their activity. */
export const personalOwner = (viewer: Viewer, client: ClientInfo): WebhookOwner => ({
  accountId: viewer.accountId,
  viewer,
  client,
  events: PERSONAL_WEBHOOK_EVENTS,
  async record(_tx, change, w) {
    if (w.action === 'created') await change.record({ type: 'webhook_created', client, at: w.at, detail: { webhook_id: w.webhookId, host: w.host, events: (w.events ?? []).join(' ') } });
    if (w.action === 'deleted') await change.record({ type: 'webhook_deleted', client, at: w.at, detail: { webhook_id: w.webhookId, host: w.host } });
  },
});

/** DNS's own answers that a name does not exist (or has no address), as node's resolver codes them. */
const NO_SUCH_NAME = new Set(['ENOTFOUND', 'ENODATA', 'ENONAME']);

/**
 * The URL's syntax, then its addresses (resolved now): https only and public, unless the operator
 * allows private ones. The rule is checkedTarget's (infra/net/public-fetch.ts), unchanged; what it
 * resolved is kept here only to say which refusal it is, since the two that come from DNS need
 * different fixes: a host that cannot be found (a typo, a record not yet published, or DNS that
 * failed just now), and a host that resolves to an address webhooks never go to.
 */
export async function checkWebhookUrl(deps: Pick<DomainDeps, 'policy'>, raw: unknown): Promise<string> {
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > URL_MAX) throw invalidInput(PROBLEMS.invalidWebhookUrl, 'url', `The endpoint URL must be an https URL of at most ${URL_MAX} characters.`);
  const allowPrivate = deps.policy.webhookAllowPrivate;
  const seen: { answers: { address: string }[]; dnsError: string | null } = { answers: [], dnsError: null };
  // The system resolver, as checkedTarget's own default, observed.
  const resolve = async (hostname: string) => {
    try {
      const answers = await lookup(hostname, { all: true, verbatim: true });
      seen.answers = answers;
      return answers;
    } catch (err) {
      seen.dnsError = (err as NodeJS.ErrnoException).code ?? 'error';
      throw err;
    }
  };
  try {
    const { url } = await checkedTarget(raw, { allowPrivate, allowHttp: allowPrivate, resolve });
    if (url.hash) throw new RefusedUrl('scheme', 'The URL may not carry a fragment (#…).');
    return url.href;
  } catch (err) {
    if (err instanceof RefusedUrl) throw invalidInput(PROBLEMS.invalidWebhookUrl, 'url', refusalOf(err, raw, seen));
    throw err;
  }
}

/** What to tell the account: a host not found and a private address are different problems. */
function refusalOf(err: RefusedUrl, raw: string, seen: { answers: { address: string }[]; dnsError: string | null }): string {
  if (err.reason !== 'resolution' && err.reason !== 'address') return err.message;
  // checkedTarget parsed it before it resolved anything.
  const hostname = new URL(raw).hostname;
  const host = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  if (err.reason === 'resolution') {
    return seen.dnsError === null || NO_SUCH_NAME.has(seen.dnsError)
      ? `The host ${host} could not be found: DNS has no address for it. Check the spelling, or publish its record first.`
      : `The host ${host} could not be found: its DNS lookup failed (${seen.dnsError}). Try again in a moment.`;
  }
  const literal = isIP(host) !== 0;
  const verdict = (literal ? [host] : seen.answers.map((a) => a.address)).map(classifyAddress).find((v) => !v.public);
  const range = verdict && !verdict.public ? ` (${verdict.range})` : '';
  return literal
    ? `${host} is a private address${range}; webhooks are only delivered to public addresses.`
    : `The host ${host} resolves to a private address${range}; webhooks are only delivered to public addresses.`;
}

function parseEvents(raw: unknown, allowed: readonly WebhookEventType[]): WebhookEventType[] {
  const known = allowed as readonly string[];
  if (!Array.isArray(raw) || raw.length === 0 || raw.some((e) => typeof e !== 'string' || !known.includes(e))) {
    throw invalidInput(PROBLEMS.invalidWebhook, 'events', `Choose at least one event: ${allowed.join(', ')}.`);
  }
  return [...new Set(raw as WebhookEventType[])];
}

function parseDescription(raw: unknown): string {
  if (raw === undefined || raw === null) return '';
  if (typeof raw !== 'string' || [...raw].length > DESCRIPTION_MAX) throw invalidInput(PROBLEMS.invalidWebhook, 'description', `The description has at most ${DESCRIPTION_MAX} characters.`);
  return raw.trim();
}

export interface CreatedWebhook {
  row: WebhookRow;
  /** `whsec_…`: in this answer only. */
  secret: string;
}

export async function createWebhook(deps: FlowDeps, owner: WebhookOwner, input: WebhookInput): Promise<CreatedWebhook> {
  const events = parseEvents(input.events, owner.events);
  const description = parseDescription(input.description);
  if (typeof input.url !== 'string') throw invalidInput(PROBLEMS.invalidWebhookUrl, 'url', 'Give the endpoint’s https URL.');
  await requireRecentAuth(deps, owner.viewer);
  const url = await checkWebhookUrl(deps, input.url);
  const secret = generateWebhookSecret();
  const now = deps.clock();
  const row = await changeAccount(deps, owner.accountId, async (tx, change) => {
    const count = await lockAndCountWebhooks(tx, owner.accountId);
    if (count === null) throw noSuchWebhook();
    if (count >= MAX_WEBHOOKS) throw conflict(PROBLEMS.webhookLimit, `At most ${MAX_WEBHOOKS} webhook endpoints per account; delete one first.`);
    const created = await insertWebhookRow(tx, { accountId: owner.accountId, url, events, description, secret: deps.cipher.seal(secret), now });
    await owner.record(tx, change, { action: 'created', webhookId: created.id, host: new URL(url).host, events, at: now });
    return created;
  });
  return { row, secret };
}

export function listWebhooks(deps: Pick<DomainDeps, 'db'>, accountId: string): Promise<WebhookRow[]> {
  return listWebhookRows(deps.db, accountId);
}

/** One of the account's endpoints; another's, or an unknown one, is 404. */
export async function getWebhook(deps: Pick<DomainDeps, 'db'>, accountId: string, id: string): Promise<WebhookRow> {
  const row = isUuid(id) ? await readWebhookRow(deps.db, accountId, id) : null;
  if (!row) throw noSuchWebhook();
  return row;
}

export async function updateWebhook(deps: FlowDeps, owner: WebhookOwner, id: string, input: WebhookInput): Promise<WebhookRow> {
  const before = await getWebhook(deps, owner.accountId, id);
  if (input.enabled !== undefined && typeof input.enabled !== 'boolean') throw invalidInput(PROBLEMS.invalidWebhook, 'enabled', 'Enabled is true or false.');
  if (input.url === null) throw invalidInput(PROBLEMS.invalidWebhookUrl, 'url', 'The endpoint URL cannot be cleared.');
  if (input.events === null) throw invalidInput(PROBLEMS.invalidWebhook, 'events', 'Choose at least one event: the events cannot be cleared.');
  const events = input.events === undefined ? undefined : parseEvents(input.events, owner.events);
  const description = input.description === undefined ? undefined : parseDescription(input.description);
  const enabled = input.enabled as boolean | undefined;
  const widens = input.url !== undefined || events !== undefined || (enabled === true && !before.enabled);
  if (widens) await requireRecentAuth(deps, owner.viewer);
  const url = input.url === undefined ? undefined : await checkWebhookUrl(deps, input.url);
  const set = {
    ...(url !== undefined ? { url } : {}),
    ...(events !== undefined ? { events } : {}),
    ...(description !== undefined ? { description } : {}),
    ...(enabled !== undefined ? { enabled } : {}),
  };
  const now = deps.clock();
  const row = await changeAccount(deps, owner.accountId, async (tx, change) => {
    const updated = await updateWebhookRow(tx, owner.accountId, before.id, {
      ...set,
      // Turned back on: the five days of failures start over.
      ...(enabled === true ? { disabledReason: null, failingSince: null } : {}),
      updatedAt: now,
    });
    if (!updated) throw noSuchWebhook();
    await owner.record(tx, change, { action: 'updated', webhookId: updated.id, host: new URL(updated.url).host, changed: Object.keys(set), at: now });
    return updated;
  });
  // Deliveries left pending while it was off go out now.
  if (enabled === true) deps.webhookNotify();
  return row;
}

export async function deleteWebhook(deps: FlowDeps, owner: WebhookOwner, id: string): Promise<void> {
  if (!isUuid(id)) throw noSuchWebhook();
  const now = deps.clock();
  await changeAccount(deps, owner.accountId, async (tx, change) => {
    const row = await deleteWebhookRow(tx, owner.accountId, id);
    if (!row) throw noSuchWebhook();
    await owner.record(tx, change, { action: 'deleted', webhookId: id, host: new URL(row.url).host, at: now });
  });
}

/** A new secret, answered once; the replaced one keeps signing (beside it) for 24 hours. */
export async function rotateWebhookSecret(deps: FlowDeps, owner: WebhookOwner, id: string): Promise<string> {
  const row = await getWebhook(deps, owner.accountId, id);
  await requireRecentAuth(deps, owner.viewer);
  const secret = generateWebhookSecret();
  const now = deps.clock();
  await changeAccount(deps, owner.accountId, async (tx, change) => {
    if (!(await rotateSecretRow(tx, owner.accountId, id, deps.cipher.seal(secret), new Date(now.getTime() + PREVIOUS_SECRET_MS), now))) throw noSuchWebhook();
    await owner.record(tx, change, { action: 'secret_rotated', webhookId: id, host: new URL(row.url).host, at: now });
  });
  return secret;
}

/** Queues a `webhook.test` event for this endpoint alone, whatever it subscribes to. */
const MANUAL_SENDS_MESSAGE = 'Too many test events and retries. Try again later.';

export async function sendTestEvent(deps: FlowDeps, accountId: string, id: string): Promise<string> {
  await reserve(deps.cache, LIMITS.webhookManualSends, accountId, MANUAL_SENDS_MESSAGE);
  const row = await getWebhook(deps, accountId, id);
  const now = deps.clock();
  const eventId = `msg_${randomUUID().replaceAll('-', '')}`;
  await inTransaction(deps.db, (tx) =>
    insertTestEvent(tx, accountId, row.id, eventId, { webhook_id: row.id, message: 'A test event, sent on request from the dashboard or the API.' }, now),
  );
  deps.webhookNotify();
  return eventId;
}

export async function listDeliveries(deps: Pick<DomainDeps, 'db'>, accountId: string, id: string, limit: unknown): Promise<AttemptView[]> {
  const take = limit === undefined || limit === null ? 50 : limit;
  if (typeof take !== 'number' || !Number.isInteger(take) || take < 1 || take > 100) throw invalidInput(PROBLEMS.invalidWebhook, 'first', 'The number of deliveries is a whole number from 1 to 100.');
  const row = await getWebhook(deps, accountId, id);
  return listAttempts(deps.db, row.id, take);
}

/** Sends a delivery again now (by its id or one of its attempts' ids, as the log lists them). */
export async function retryDelivery(deps: FlowDeps, accountId: string, id: string, deliveryId: string): Promise<void> {
  await reserve(deps.cache, LIMITS.webhookManualSends, accountId, MANUAL_SENDS_MESSAGE);
  const row = await getWebhook(deps, accountId, id);
  if (!isUuid(deliveryId) || !(await requeueDelivery(deps.db, row.id, deliveryId, deps.clock()))) throw notFound(PROBLEMS.deliveryNotFound, 'No such delivery.');
  deps.webhookNotify();
}
