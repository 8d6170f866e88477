// Dynamic client registration (API.md section 13, RFC 7591): open to any MCP client, so bounded:
// 20 registrations per network an hour (counted before the registration runs), and a
// registration that never gets a token expires after 30 days.
import type { ClientInfo, DomainDeps } from '../context.js';
import { OAuthError } from '../device-grant/oauth-error.js';
import { consume, LIMITS } from '../limits/rate-limit.js';
import { networkOf } from '../network.js';

export const UNUSED_CLIENT_TTL_MS = 30 * 24 * 3600_000;

export async function countRegistration(deps: Pick<DomainDeps, 'cache'>, client: ClientInfo): Promise<void> {
  const { allowed, retryAfterSeconds } = await consume(deps.cache, LIMITS.clientRegistrationsPerNetwork, networkOf(client.ip) ?? client.ip);
  if (!allowed) throw new OAuthError('temporarily_unavailable', 'Too many client registrations from this network. Try again later.', retryAfterSeconds);
}
