// WebAuthn challenges kept server-side in the shared cache for 5 minutes, single use: taking one
// reads and deletes it atomically, so two requests can never both use it. Expiry is checked
// against the injected clock as well as by the cache TTL. A registration challenge is keyed by the
// session that asked for it; a sign-in challenge by the SHA-256 of a random challenge id.
import { generateToken, hashToken, isWellFormedToken } from '../../infra/crypto/tokens.js';
import type { DomainDeps } from '../context.js';
import { PROBLEMS, unavailable } from '../errors.js';
import { CEREMONY_MS } from './relying-party.js';

interface Stored {
  challenge: string;
  expiresAt: number;
  /** The account a registration challenge was made for. */
  accountId?: string;
}

const registrationKey = (sessionId: string) => `passkey:reg:${sessionId}`;
const signInKey = (challengeId: string) => `passkey:login:${hashToken(challengeId)}`;

/**
 * Challenges live only in the shared cache (every instance must find them): while it is
 * unreachable a ceremony cannot start or finish: 503 UNAVAILABLE, not an internal error.
 * Passwords and sessions keep working meanwhile.
 */
const cacheDown = () => unavailable(PROBLEMS.passkeysUnavailable, 'Passkeys are unavailable for a moment. Try again shortly, or sign in with your password.');

async function put(deps: Pick<DomainDeps, 'cache' | 'clock'>, key: string, value: Omit<Stored, 'expiresAt'>): Promise<void> {
  const stored: Stored = { ...value, expiresAt: deps.clock().getTime() + CEREMONY_MS };
  await deps.cache.set(key, JSON.stringify(stored), CEREMONY_MS).catch(() => {
    throw cacheDown();
  });
}

async function take(deps: Pick<DomainDeps, 'cache' | 'clock'>, key: string): Promise<Stored | null> {
  const raw = await deps.cache.take(key).catch(() => {
    throw cacheDown();
  });
  if (!raw) return null;
  const stored = JSON.parse(raw) as Stored;
  return stored.expiresAt > deps.clock().getTime() ? stored : null;
}

export async function putRegistrationChallenge(
  deps: Pick<DomainDeps, 'cache' | 'clock'>,
  sessionId: string,
  accountId: string,
  challenge: string,
): Promise<void> {
  await put(deps, registrationKey(sessionId), { challenge, accountId });
}

/** The session's registration challenge, if it has one that is live and made for this account. */
export async function takeRegistrationChallenge(
  deps: Pick<DomainDeps, 'cache' | 'clock'>,
  sessionId: string,
  accountId: string,
): Promise<string | null> {
  const stored = await take(deps, registrationKey(sessionId));
  return stored && stored.accountId === accountId ? stored.challenge : null;
}

/** Stores a sign-in challenge; returns its id (the client sends it back with the assertion). */
export async function putSignInChallenge(deps: Pick<DomainDeps, 'cache' | 'clock'>, challenge: string): Promise<string> {
  const challengeId = generateToken();
  await put(deps, signInKey(challengeId), { challenge });
  return challengeId;
}

export async function takeSignInChallenge(deps: Pick<DomainDeps, 'cache' | 'clock'>, challengeId: string): Promise<string | null> {
  if (!isWellFormedToken(challengeId)) return null;
  return (await take(deps, signInKey(challengeId)))?.challenge ?? null;
}
