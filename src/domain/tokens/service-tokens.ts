// The account's service tokens (API.md section 12): create (the secret is answered once), list,
// revoke. Creating one plants a lasting way in, so it needs a verified address and a recently
// authenticated session (section 7a), sends the `token-created` notice and is recorded; a revoked
// token is deleted and tombstoned in the credential cache, so it fails on its next request on
// every instance.
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

/**
 * A new token for the account, recorded and announced to its owner. `claim` runs first in the
 * same transaction (the device grant's single exchange): when it throws, nothing is issued.
 */
export async function issueServiceToken(
  deps: FlowDeps,
  accountId: string,
  spec: { name: string; scopes: TokenScope[]; expiresInDays: number | null },
  client: ClientInfo,
  claim?: (tx: Tx) => Promise<void>,
): Promise<CreatedToken> {
  const token = generateServiceToken();
  const now = deps.clock();
  const row = await changeAccount(deps, accountId, async (tx, change) => {
    if (claim) await claim(tx);
    const account = await lockForNewToken(tx, accountId, now);
    if (!account) throw notFound(PROBLEMS.notFound);
    if (account.live >= MAX_LIVE_TOKENS) throw conflict(PROBLEMS.tokenLimit, `At most ${MAX_LIVE_TOKENS} live service tokens; revoke one first.`);
    const created = await insertTokenRow(tx, {
      accountId,
      name: spec.name,
      tokenHash: hashToken(token),
      scopes: spec.scopes,
      createdAt: now,
      expiresAt: spec.expiresInDays === null ? null : new Date(now.getTime() + spec.expiresInDays * DAY_MS),
    });
    await change.record({ type: 'token_created', client, at: now, detail: { token_id: created.id, name: spec.name, scopes: spec.scopes.join(' ') } });
    await change.send(account.email, tokenCreated(deps.mailContext, { at: now, name: spec.name, scopes: spec.scopes, ip: client.ip, userAgent: client.userAgent }));
    return created;
  });
  return { row, token };
}

export async function createServiceToken(deps: FlowDeps, viewer: Viewer, input: TokenInput, client: ClientInfo): Promise<CreatedToken> {
  const spec = { name: tokenName(input.name), scopes: parseScopes(input.scopes), expiresInDays: expiryDays(input.expiresInDays) };
  await guardAddition(deps, viewer, { verified: true, recent: true });
  return issueServiceToken(deps, viewer.accountId, spec, client);
}

export function listServiceTokens(deps: Pick<DomainDeps, 'db'>, accountId: string): Promise<TokenRow[]> {
  return listTokenRows(deps.db, accountId);
}


/** Revokes the account's token; another account's answers like an unknown one (404). */
export async function revokeServiceToken(deps: FlowDeps, accountId: string, id: string, client: ClientInfo): Promise<void> {
  if (!isUuid(id)) throw notFound(PROBLEMS.tokenNotFound, 'No such token.');
  const gone = await changeAccount(deps, accountId, async (tx, change) => {
    const row = await deleteTokenRow(tx, accountId, id);
    if (!row) throw notFound(PROBLEMS.tokenNotFound, 'No such token.');
    await change.record({ type: 'token_revoked', client, at: deps.clock(), detail: { token_id: id, name: row.name } });
    return row;
  });
  await tombstone(deps, [gone.tokenHash]);
}

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
