// Dynamic client registration (API.md sections 13 and 13a, RFC 7591): open to any MCP client, so
// bounded: 100 registrations per network an hour (counted before the registration runs), and a
// registration that never gets a token expires after 24 hours. Authorization requests are bounded
// the same way (60 a minute per network), since each may leave a pending request behind.
import type { ClientInfo, DomainDeps } from '../context.js';
import { oauthError, PROBLEMS } from '../errors.js';
import { consume, LIMITS } from '../limits/rate-limit.js';
import { networkOf } from '../network.js';

export const UNUSED_CLIENT_TTL_MS = 24 * 3600_000;

export async function countRegistration(deps: Pick<DomainDeps, 'cache'>, client: ClientInfo): Promise<void> {
  const { allowed, retryAfterSeconds } = await consume(deps.cache, LIMITS.clientRegistrationsPerNetwork, networkOf(client.ip) ?? client.ip);
  if (!allowed) throw oauthError(PROBLEMS.oauthTemporarilyUnavailable, 'Too many client registrations from this network. Try again later.', retryAfterSeconds);
}

/** Counts an authorization request against its network's limit, before any work. */
export async function countAuthorization(deps: Pick<DomainDeps, 'cache'>, client: ClientInfo): Promise<{ allowed: boolean; retryAfterSeconds: number }> {
  return consume(deps.cache, LIMITS.authorizationsPerNetwork, networkOf(client.ip) ?? client.ip);
}
