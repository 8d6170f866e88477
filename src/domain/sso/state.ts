// The OAuth state, bound to the browser that started the flow. The browser holds a random
// binding value (an HttpOnly cookie set by the adapter); the flow is stored in the cache under
// the hash of binding + state, so a callback carrying a state from another browser, a replayed
// state or an expired one finds nothing. take() makes every state single use, on every instance.
// The PKCE verifier lives only here, server-side.
import { timingSafeEqual } from 'node:crypto';
import { generateState } from 'arctic';
import type { Cache } from '../../infra/cache/cache.js';
import { generateToken, hashToken, isWellFormedToken } from '../../infra/crypto/tokens.js';
import type { ProviderName } from './identity.js';

export const STATE_TTL_MS = 10 * 60_000;

export type Intent =
  | { kind: 'sign-in' }
  | { kind: 'link'; accountId: string }
  /** Re-authentication of a signed-in session with a linked provider (API.md section 7a). */
  | { kind: 'reauth'; accountId: string; sessionId: string };

export interface PendingFlow {
  provider: ProviderName;
  intent: Intent;
  codeVerifier: string | null;
}

interface StoredFlow extends PendingFlow {
  state: string;
  /** Epoch ms by the service clock; the cache TTL only cleans up (it runs on the cache's clock). */
  expiresAt: number;
}

const key = (binding: string, state: string) => `sso:state:${hashToken(`${binding}.${state}`)}`;

/** A binding value for a browser that has none (or a malformed one). */
export function browserBinding(current: string | undefined): string {
  return isWellFormedToken(current) ? current : generateToken();
}

export async function saveFlow(
  cache: Cache,
  now: Date,
  binding: string,
  create: (state: string) => PendingFlow,
): Promise<{ state: string }> {
  const state = generateState();
  const flow: StoredFlow = { ...create(state), state, expiresAt: now.getTime() + STATE_TTL_MS };
  await cache.set(key(binding, state), JSON.stringify(flow), STATE_TTL_MS);
  return { state };
}

/** The flow this browser started with this state, consumed; null for anything else. */
export async function takeFlow(
  cache: Cache,
  now: Date,
  binding: string | undefined,
  state: unknown,
  provider: ProviderName,
): Promise<PendingFlow | null> {
  if (!isWellFormedToken(binding) || typeof state !== 'string' || state.length === 0 || state.length > 128) return null;
  const raw = await cache.take(key(binding, state));
  if (!raw) return null;
  const flow = JSON.parse(raw) as StoredFlow;
  // The key already binds the state; the comparison guards against a corrupted or foreign entry.
  const same = flow.state.length === state.length && timingSafeEqual(Buffer.from(flow.state), Buffer.from(state));
  if (!same || flow.provider !== provider || flow.expiresAt <= now.getTime()) return null;
  return { provider: flow.provider, intent: flow.intent, codeVerifier: flow.codeVerifier };
}
