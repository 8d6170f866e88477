// The device authorization grant (API.md section 12, RFC 8628) for the tunnel CLI, on this
// project's own token machinery (docs/adr/0013-device-grant-on-service-tokens.md): the device
// asks for codes, the signed-in person approves or denies its user code in the console, and the
// device's poll exchanges the approval, exactly once, for a new service token named after the
// device's user agent, with the approved scopes and no expiry; it is then listed and revoked with
// the account's other tokens.
//
// Guessing: every user-code attempt is counted per network before the code is looked at, and a
// right one is taken back, so 10 wrong codes in 15 minutes stop that network; then, so that many
// networks cannot add up to a guess, against the whole service (10 wrong codes a minute), while
// the codes that can be live at once are bounded by a service-wide limit on device requests (20
// a minute): limits.ts shows why any guess then succeeds with a chance below 10^-6. Polling: a poll
// sooner than the interval answers slow_down and adds 5 s to it (RFC 8628 section 3.5), under the
// row's lock, so concurrent polls cannot both pass.
import { changeAccount } from '../activity/account-change.js';
import type { ClientInfo, DomainDeps, Viewer } from '../context.js';
import { AppError, conflict, isOAuthError, notFound, oauthError, PROBLEMS, rateLimited } from '../errors.js';
import { consume, LIMITS, reserve, settleAll } from '../limits/rate-limit.js';
import { maskIp, networkOf } from '../network.js';
import { guardAddition } from '../sessions/recent-auth.js';
import { inTransaction } from '../store.js';
import { isTokenScope, type TokenScope, TOKEN_SCOPES } from '../tokens/scopes.js';
import { issueServiceToken, MAX_LIVE_TOKENS } from '../tokens/service-tokens.js';
import { countLiveTokens } from '../tokens/store.js';
import { generateToken, hashToken } from '../../infra/crypto/tokens.js';
import { violates } from '../../infra/db/errors.js';
import { DEVICE_REQUESTS_EVERYWHERE, DEVICE_WRONG_CODES_EVERYWHERE, EVERYWHERE } from './limits.js';
import {
  decideDeviceRow,
  findPendingByUserCode,
  insertDeviceRow,
  lockByDeviceCode,
  markExchanged,
  recordPoll,
  releaseExpiredUserCode,
  type DeviceRow,
} from './store.js';
import { displayUserCode, generateUserCode, normaliseUserCode, USER_CODE_ALPHABET, USER_CODE_LENGTH } from './user-code.js';

type FlowDeps = Pick<DomainDeps, 'cache' | 'clock' | 'db' | 'events' | 'mailContext' | 'mailNotify' | 'outbox' | 'webhookNotify' | 'policy'>;

/** The one client of the grant (the tunnel CLI); section 13 adds others to the authorization server. */
export const DEVICE_CLIENT_ID = 'tunnel-cli';
export const DEVICE_CODE_TTL_SECONDS = 600;
export const POLL_INTERVAL_SECONDS = 5;
/** RFC 8628 section 3.5: each slow_down adds 5 seconds. */
export const SLOW_DOWN_STEP_SECONDS = 5;
export const DEFAULT_DEVICE_SCOPES: readonly TokenScope[] = ['tunnels:read', 'tunnels:write'];
const TOKEN_NAME_MAX = 100;

export const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

export interface DeviceCodes {
  deviceCode: string;
  /** XXXX-XXXX. */
  userCode: string;
  expiresIn: number;
  interval: number;
}

function requireClient(clientId: unknown): void {
  if (clientId !== DEVICE_CLIENT_ID) throw oauthError(PROBLEMS.oauthInvalidClient, 'Unknown client_id.');
}

/** `scope` of the device request: space-separated known scopes; absent or empty: the default. */
export function parseDeviceScope(raw: unknown): TokenScope[] {
  if (raw === undefined || raw === null || (typeof raw === 'string' && raw.trim() === '')) return [...DEFAULT_DEVICE_SCOPES];
  if (typeof raw !== 'string') throw oauthError(PROBLEMS.oauthInvalidScope, 'scope: space-separated scopes.');
  const asked = raw.trim().split(/ +/);
  const unknown = asked.find((s) => !isTokenScope(s));
  if (unknown !== undefined) throw oauthError(PROBLEMS.oauthInvalidScope, `Unknown scope ${JSON.stringify(unknown)}; use ${TOKEN_SCOPES.join(', ')}.`);
  return TOKEN_SCOPES.filter((s) => asked.includes(s));
}

/** POST /oauth/device_authorization. */
export async function startDeviceAuthorization(deps: Pick<DomainDeps, 'cache' | 'clock' | 'db'>, input: { clientId: unknown; scope: unknown }, client: ClientInfo): Promise<DeviceCodes> {
  requireClient(input.clientId);
  const scopes = parseDeviceScope(input.scope);
  const network = networkOf(client.ip) ?? client.ip;
  const { allowed, retryAfterSeconds } = await consume(deps.cache, LIMITS.deviceRequestsPerNetwork, network);
  if (!allowed) throw oauthError(PROBLEMS.oauthTemporarilyUnavailable, 'Too many sign-in requests from this network. Try again later.', retryAfterSeconds);
  // Every code made live raises the chance of a guess: the live ones are bounded service-wide.
  const everywhere = await consume(deps.cache, DEVICE_REQUESTS_EVERYWHERE, EVERYWHERE);
  if (!everywhere.allowed) {
    throw oauthError(PROBLEMS.oauthTemporarilyUnavailable, 'Too many sign-in requests on this service right now. Try again in a minute.', everywhere.retryAfterSeconds);
  }
  const now = deps.clock();
  const deviceCode = generateToken(32);
  for (let attempt = 0; ; attempt++) {
    const userCode = generateUserCode();
    const userCodeHash = hashToken(userCode);
    await releaseExpiredUserCode(deps.db, userCodeHash, now);
    try {
      await insertDeviceRow(deps.db, {
        deviceCodeHash: hashToken(deviceCode),
        userCodeHash,
        clientId: DEVICE_CLIENT_ID,
        scopes,
        userAgent: client.userAgent,
        ip: client.ip,
        intervalSeconds: POLL_INTERVAL_SECONDS,
        expiresAt: new Date(now.getTime() + DEVICE_CODE_TTL_SECONDS * 1000),
        createdAt: now,
      });
      return { deviceCode, userCode: displayUserCode(userCode), expiresIn: DEVICE_CODE_TTL_SECONDS, interval: POLL_INTERVAL_SECONDS };
    } catch (err) {
      // A live request holds this user code (1 in 2.6·10^10 per live request): draw another.
      if (attempt < 3 && violates(err, 'user_code_hash', 'userCodeHash')) continue;
      throw err;
    }
  }
}

/** `Tunnel CLI (<user agent>)`, within the 100 characters of a token name. */
export function deviceTokenName(userAgent: string): string {
  const agent = userAgent.trim() || 'unknown device';
  const room = TOKEN_NAME_MAX - 'Tunnel CLI ()'.length;
  const chars = [...agent];
  return `Tunnel CLI (${chars.length > room ? `${chars.slice(0, room - 1).join('')}…` : agent})`;
}

export interface DeviceToken {
  accessToken: string;
  scope: string;
}

/** POST /oauth/token with the device-code grant: the token once approved, else the RFC's error. */
export async function exchangeDeviceCode(deps: FlowDeps, input: { deviceCode: unknown; clientId: unknown }, client: ClientInfo): Promise<DeviceToken> {
  requireClient(input.clientId);
  if (typeof input.deviceCode !== 'string' || input.deviceCode === '') throw oauthError(PROBLEMS.oauthInvalidRequest, 'device_code is required.');
  const deviceCodeHash = hashToken(input.deviceCode);
  const now = deps.clock();
  const approved = await inTransaction(deps.db, async (tx) => {
    const row = await lockByDeviceCode(tx, deviceCodeHash);
    if (!row || row.clientId !== DEVICE_CLIENT_ID || row.status === 'exchanged') throw oauthError(PROBLEMS.oauthInvalidGrant, 'Unknown or already used device_code.');
    if (row.expiresAt.getTime() <= now.getTime()) throw oauthError(PROBLEMS.oauthExpiredToken, 'The device code has expired. Start the sign-in again.');
    if (row.status === 'denied') throw oauthError(PROBLEMS.oauthAccessDenied, 'The sign-in was denied.');
    if (row.status === 'approved') return row;
    const early = row.lastPolledAt !== null && now.getTime() - row.lastPolledAt.getTime() < row.intervalSeconds * 1000;
    const interval = early ? row.intervalSeconds + SLOW_DOWN_STEP_SECONDS : row.intervalSeconds;
    await recordPoll(tx, row.id, now, interval);
    return early ? ({ slowDown: interval } as const) : null;
  });
  if (approved === null) throw oauthError(PROBLEMS.oauthAuthorizationPending, 'Waiting for the sign-in to be approved.');
  if ('slowDown' in approved) throw oauthError(PROBLEMS.oauthSlowDown, `Polling too fast: wait ${approved.slowDown} seconds between requests.`);
  return issueForDevice(deps, approved, client);
}

async function issueForDevice(deps: FlowDeps, row: DeviceRow, client: ClientInfo): Promise<DeviceToken> {
  const scopes = row.scopes.filter(isTokenScope);
  try {
    const { token } = await issueServiceToken(deps, row.accountId!, { name: deviceTokenName(row.userAgent), scopes, expiresInDays: null }, client, {
      claim: async (tx) => {
        if (!(await markExchanged(tx, row.id, deps.clock()))) throw oauthError(PROBLEMS.oauthInvalidGrant, 'Unknown or already used device_code.');
      },
    });
    return { accessToken: token, scope: scopes.join(' ') };
  } catch (err) {
    if (isOAuthError(err)) throw err;
    if (err instanceof AppError && err.code === 'CONFLICT') throw oauthError(PROBLEMS.oauthInvalidGrant, err.message);
    throw err;
  }
}

export interface DeviceRequestView {
  clientId: string;
  scopes: string[];
  requestedAt: Date;
  /** Of the device's request, masked. */
  ip: string;
  userAgent: string;
}

/**
 * A user-code attempt: counted against the network's limit, then against the service-wide one,
 * before the code is looked at (429 past either); an unknown, expired, decided or malformed code
 * is 404 and stays counted in both; a right one is taken back from both. An attempt the network's
 * limit refuses is not counted service-wide (one network cannot spend everyone's budget), and one
 * the service-wide limit refuses is taken back from its network (it was not looked at).
 */
async function attempt<T>(deps: Pick<DomainDeps, 'cache'>, rawCode: unknown, client: ClientInfo, use: (userCodeHash: string) => Promise<T | null>): Promise<T> {
  const perNetwork = { limit: LIMITS.deviceCodeGuesses, subject: networkOf(client.ip) ?? client.ip };
  const everywhere = { limit: DEVICE_WRONG_CODES_EVERYWHERE, subject: EVERYWHERE };
  await reserve(deps.cache, perNetwork.limit, perNetwork.subject, 'Too many wrong codes from this network. Try again later.');
  const all = await consume(deps.cache, everywhere.limit, everywhere.subject);
  if (!all.allowed) {
    await settleAll(deps.cache, [perNetwork], []);
    throw rateLimited(PROBLEMS.tooManyWrongCodes, 
      all.retryAfterSeconds,
      `Too many wrong codes have been tried on this service in the last minute, so no code is checked for now. Try again in ${all.retryAfterSeconds} seconds.`,
    );
  }
  const code = normaliseUserCode(rawCode);
  const found = code === null ? null : await use(hashToken(code));
  if (found === null) throw notFound(PROBLEMS.deviceCodeNotFound, 'No sign-in request has this code, or it has expired. Check the code your device shows.');
  await settleAll(deps.cache, [perNetwork, everywhere], []);
  return found;
}

/**
 * The bound that the service-wide limits give, as configured (limits.ts): at most `liveCodes` codes
 * live at once and `wrongCodes` wrong codes tried during one code's life (a fixed window of a
 * minute meets a 10-minute interval at most 11 times), so some wrong code is some live code with a
 * chance of at most `chance`.
 */
export function guessingBound(): { liveCodes: number; wrongCodes: number; codeSpace: number; chance: number } {
  const windowsPerLife = (windowMs: number) => Math.ceil((DEVICE_CODE_TTL_SECONDS * 1000) / windowMs) + 1;
  const liveCodes = windowsPerLife(DEVICE_REQUESTS_EVERYWHERE.windowMs) * DEVICE_REQUESTS_EVERYWHERE.max;
  const wrongCodes = windowsPerLife(DEVICE_WRONG_CODES_EVERYWHERE.windowMs) * DEVICE_WRONG_CODES_EVERYWHERE.max;
  const codeSpace = USER_CODE_ALPHABET.length ** USER_CODE_LENGTH;
  return { liveCodes, wrongCodes, codeSpace, chance: (liveCodes * wrongCodes) / codeSpace };
}

const view = (row: DeviceRow): DeviceRequestView => ({ clientId: row.clientId, scopes: row.scopes, requestedAt: row.createdAt, ip: maskIp(row.ip), userAgent: row.userAgent });

/** POST /api/device/lookup: what the device asked for, so the person can decide. */
export function lookupDeviceRequest(deps: FlowDeps, _viewer: Viewer, userCode: unknown, client: ClientInfo): Promise<DeviceRequestView> {
  return attempt(deps, userCode, client, async (hash) => {
    const row = await findPendingByUserCode(deps.db, hash, deps.clock());
    return row && view(row);
  });
}

/** POST /api/device/approve: needs a verified address and a recent sign-in (section 7a). */
export async function approveDevice(deps: FlowDeps, viewer: Viewer, userCode: unknown, client: ClientInfo): Promise<void> {
  await guardAddition(deps, viewer, { verified: true, recent: true });
  await attempt(deps, userCode, client, (hash) =>
    changeAccount(deps, viewer.accountId, async (tx, change) => {
      const now = deps.clock();
      const row = await decideDeviceRow(tx, hash, 'approved', viewer.accountId, now);
      if (!row) return null;
      if ((await countLiveTokens(tx, viewer.accountId, now)) >= MAX_LIVE_TOKENS) throw conflict(PROBLEMS.tokenLimit, `At most ${MAX_LIVE_TOKENS} live service tokens; revoke one first.`);
      await change.record({
        type: 'device_approved',
        client,
        at: now,
        detail: { client_id: row.clientId, scopes: row.scopes.join(' '), device_ip: maskIp(row.ip), device: row.userAgent.slice(0, 200) },
      });
      return row;
    }),
  );
}

/** POST /api/device/deny: the device's next poll answers access_denied. */
export async function denyDevice(deps: FlowDeps, viewer: Viewer, userCode: unknown, client: ClientInfo): Promise<void> {
  await attempt(deps, userCode, client, (hash) =>
    changeAccount(deps, viewer.accountId, (tx) => decideDeviceRow(tx, hash, 'denied', viewer.accountId, deps.clock())),
  );
}
