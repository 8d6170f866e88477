// POST /auth/login. An unknown email answers exactly like a wrong password (status, body, and
// timing: a hash is burned); the limits are those of every password check (password-check.ts).
// With two-step sign-in on, the right password issues no session: the answer is an mfa_token
// for POST /auth/mfa/verify (mfa-challenge.ts).
import type { DomainDeps, ClientInfo } from '../context.js';
import { wrongCredentials } from '../errors.js';
import { issueSignIn, type SignedIn } from '../sessions/sign-in.js';
import { hasNul, normalizeEmail } from '../email-address.js';
import { checkSignInPassword } from '../passwords/password-check.js';
import { networkOf } from '../network.js';
import { createMfaChallenge, type MfaRequired } from '../two-step/mfa-challenge.js';
import { setPasswordHash } from '../passwords/store.js';
import { findLoginAccount } from './store.js';

/** What these flows use of the domain's dependencies. */
type FlowDeps = Pick<DomainDeps, 'background' | 'cache' | 'passwords' | 'clock' | 'db' | 'events' | 'mailContext' | 'mailNotify' | 'webhookNotify' | 'outbox' | 'sql'>;

export async function login(
  deps: FlowDeps,
  input: { email: string; password: string },
  client: ClientInfo,
): Promise<SignedIn | MfaRequired> {
  const emailKey = normalizeEmail(input.email).slice(0, 320);
  const network = networkOf(client.ip) ?? '';
  const account = hasNul(emailKey) ? null : await findLoginAccount(deps.sql, emailKey, network);
  const subject = { emailKey, passwordHash: account?.passwordHash ?? null, knownNetwork: account?.knownNetwork === true };
  const checked = await checkSignInPassword(deps, account?.id ?? null, subject, input.password, client, wrongCredentials);
  const { rehash } = checked.value;
  if (!account) throw wrongCredentials(); // not reached: without a hash checkPassword throws
  if (account.twoStep) {
    await checked.settle();
    if (rehash) await setPasswordHash(deps.db, account.id, rehash);
    return createMfaChallenge(deps, { accountId: account.id, method: 'password' });
  }
  // The limits are settled with the sign-in's own cache writes, after its commit.
  return issueSignIn(
    deps,
    account,
    client,
    { method: 'password', secondStep: false },
    rehash ? (tx) => setPasswordHash(tx, account.id, rehash) : undefined,
    checked.settle,
  );
}
