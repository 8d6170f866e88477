// What every SSO module shares: the provider names, what a provider vouches for, and how a
// provider failure is told apart from our own faults.
import { withTimeout } from '../../infra/timeout.js';

export const PROVIDER_NAMES = ['google', 'github'] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];

export const isProviderName = (v: unknown): v is ProviderName => PROVIDER_NAMES.includes(v as ProviderName);

/** What the provider vouches for; the email is the one it reports, verified or not. */
export interface ProviderIdentity {
  provider: ProviderName;
  providerUserId: string;
  email: string;
  emailVerified: boolean;
}

/** A provider that failed or answered something unusable (token error, no email, timeout). */
export class ProviderFailure extends Error {}

const PROVIDER_TIMEOUT_MS = 10_000;

/** arctic's token request carries no timeout; a hung provider must not hang the callback. */
export function withProviderTimeout<T>(op: Promise<T>, what: string): Promise<T> {
  return withTimeout(op, PROVIDER_TIMEOUT_MS, () => new ProviderFailure(`${what} timed out`));
}
