// The account's service tokens (API.md section 12): create (the secret is answered once), list,
// revoke. Creating one plants a lasting way in, so it needs a verified address and a recently
// authenticated session (section 7a), sends the `token-created` notice and is recorded; a revoked
// token is deleted and tombstoned in the credential cache, so it fails on its next request on
// every instance. An organization's token (API.md section 18: its account is the organization's)
// is made by one of its members: they get the notice, and the organization's audit log, not an
// activity log, records its creation and revocation.
import { changeAccount } from '../activity/account-change.js';
import type { ClientInfo, DomainDeps, Viewer } from '../context.js';
import { tokenCreated } from '../emails/messages.js';
import { AppError, conflict, invalidInput, notFound, PROBLEMS } from '../errors.js';
import { hashToken } from '../../infra/crypto/tokens.js';
import { guardAddition } from '../sessions/recent-auth.js';
import { tombstone } from '../sessions/session.js';
import { generateServiceToken, isServiceTokenLike } from './format.js';
import { parseScopes, type TokenScope } from './scopes.js';
import { deleteTokenRow, insertTokenRow, listTokenRows, lockForNewToken, readTokenRow, type TokenRow } from './store.js';
import { isUuid } from '../ids.js';
import type { Tx } from '../store.js';
import type { Actor, OrgScope } from '../membership/access.js';
import { recordAudit } from '../membership/audit.js';
import { readPersonEmail } from '../membership/store.js';

/** What these flows use of the domain's dependencies. */
type FlowDeps = Pick<DomainDeps, 'cache' | 'clock' | 'db' | 'events' | 'mailContext' | 'mailNotify' | 'webhookNotify' | 'outbox' | 'policy'>;

/** Live (unexpired) tokens per account. */
export const MAX_LIVE_TOKENS = 50;
const NAME_MAX = 100;
const DAY_MS = 24 * 3600_000;

export interface TokenInput {
  name: unknown;
  scopes: unknown;
  /** 1–366, or null/absent for a token that never expires. */
  expiresInDays?: unknown;
}

export interface CreatedToken {
  row: TokenRow;
  /** The secret: in this answer only. */
  token: string;
}

function tokenName(raw: unknown): string {
  const name = typeof raw === 'string' ? raw.trim() : '';
  const length = [...name].length;
  if (length < 1 || length > NAME_MAX) throw invalidInput(PROBLEMS.invalidTokenInput, 'name', `Give the token a name of 1 to ${NAME_MAX} characters.`);
  return name;
}

function expiryDays(raw: unknown): number | null {
  if (raw === undefined || raw === null) return null;
  if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < 1 || raw > 366) throw invalidInput(PROBLEMS.invalidTokenInput, 'expiresInDays', 'A token expires after a whole number of days from 1 to 366, or never.');
  return raw;
}

export interface IssueOptions {
  /** Runs first in the transaction (the device grant's single exchange): when it throws, nothing is issued. */
  claim?: (tx: Tx) => Promise<void>;
  /** An organization's token (`accountId` is the organization's): the member making it, and where. */
  org?: OrgScope;
}

/** A new token for the account, recorded and announced to its owner (for an organization, to the member making it). */
export async function issueServiceToken(
  deps: FlowDeps,
  accountId: string,
  spec: { name: string; scopes: TokenScope[]; expiresInDays: number | null },
  client: ClientInfo,
  opts: IssueOptions = {},
): Promise<CreatedToken> {
  const token = generateServiceToken();
  const now = deps.clock();
  const org = opts.org ?? null;
  const maker = org ? await readPersonEmail(deps.db, org.actor.viewer.accountId) : null;
  const row = await changeAccount(deps, accountId, async (tx, change) => {
    if (opts.claim) await opts.claim(tx);
    const account = await lockForNewToken(tx, accountId, now);
    // A person's token for an organization, or the reverse, is no token at all.
    if (!account || account.isOrg !== (org !== null)) throw notFound(PROBLEMS.notFound);
    if (account.live >= MAX_LIVE_TOKENS) throw conflict(PROBLEMS.tokenLimit, `At most ${MAX_LIVE_TOKENS} live service tokens; revoke one first.`);
    const created = await insertTokenRow(tx, {
      accountId,
      name: spec.name,
      tokenHash: hashToken(token),
      scopes: spec.scopes,
      createdAt: now,
      expiresAt: spec.expiresInDays === null ? null : new Date(now.getTime() + spec.expiresInDays * DAY_MS),
      createdBy: org ? org.actor.viewer.accountId : null,
    });
    const notice = tokenCreated(deps.mailContext, { at: now, name: spec.name, scopes: spec.scopes, ip: client.ip, userAgent: client.userAgent, ...(org ? { org: org.org.slug } : {}) });
    if (org) {
      await recordAudit(tx, accountId, org.actor, 'token_created', { token_id: created.id, name: spec.name, scopes: spec.scopes }, now);
      if (maker) await change.send(maker.email, notice);
    } else {
      await change.record({ type: 'token_created', client, at: now, detail: { token_id: created.id, name: spec.name, scopes: spec.scopes.join(' ') } });
      await change.send(account.email, notice);
    }
    return created;
  });
  return { row, token };
}

/** The name, scopes and lifetime of a new token, by the rules of section 12. */
export const tokenSpec = (input: TokenInput) => ({ name: tokenName(input.name), scopes: parseScopes(input.scopes), expiresInDays: expiryDays(input.expiresInDays) });

export async function createServiceToken(deps: FlowDeps, viewer: Viewer, input: TokenInput, client: ClientInfo): Promise<CreatedToken> {
  const spec = tokenSpec(input);
  await guardAddition(deps, viewer, { verified: true, recent: true });
  return issueServiceToken(deps, viewer.accountId, spec, client);
}

export function listServiceTokens(deps: Pick<DomainDeps, 'db'>, accountId: string): Promise<TokenRow[]> {
  return listTokenRows(deps.db, accountId);
}


/**
 * Revokes the account's token; another account's answers like an unknown one (404). An
 * organization's token is recorded in its audit log, by `by` (a member), or else by the token
 * itself (RFC 7009: whoever holds it).
 */
export async function revokeServiceToken(deps: FlowDeps, accountId: string, id: string, client: ClientInfo, by?: Actor): Promise<void> {
  if (!isUuid(id)) throw notFound(PROBLEMS.tokenNotFound, 'No such token.');
  const gone = await changeAccount(deps, accountId, async (tx, change) => {
    const row = await deleteTokenRow(tx, accountId, id);
    if (!row) throw notFound(PROBLEMS.tokenNotFound, 'No such token.');
    const at = deps.clock();
    if (row.ownerIsOrg) await recordAudit(tx, accountId, by ?? tokenActor(accountId, id, client), 'token_revoked', { token_id: id, name: row.name }, at);
    else await change.record({ type: 'token_revoked', client, at, detail: { token_id: id, name: row.name } });
    return row;
  });
  await tombstone(deps, [gone.tokenHash]);
}

/** The token itself as the actor (the audit log shows its id). */
const tokenActor = (accountId: string, id: string, client: ClientInfo): Actor => ({
  viewer: { accountId, sessionId: `token:${id}`, tokenHash: '', authenticatedAt: 0, scopes: [] },
  client,
});

/**
 * POST /oauth/revoke (RFC 7009): whoever holds a token may revoke it, without telling anyone
 * whether it was one (the caller answers 200 whatever happened).
 */
export async function revokeServiceTokenByValue(deps: FlowDeps, token: string, client: ClientInfo): Promise<void> {
  if (!isServiceTokenLike(token)) return;
  const row = await readTokenRow(deps.db, hashToken(token));
  if (!row) return;
  try {
    await revokeServiceToken(deps, row.accountId, row.id, client);
  } catch (err) {
    // Revoked by a concurrent request meanwhile: the outcome asked for.
    if (!(err instanceof AppError && err.code === 'NOT_FOUND')) throw err;
  }
}
