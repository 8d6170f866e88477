// POST /auth/signup: the account (unverified, slug derived from the email), the verification
// token and its email, in one transaction.
import { randomUUID } from 'node:crypto';
import { conflict, emailTaken, PROBLEMS } from '../errors.js';
import { changeAccount } from '../activity/account-change.js';
import { violates } from '../../infra/db/errors.js';
import { verifyEmail } from '../emails/messages.js';
import { rememberNetwork } from '../sessions/sign-in.js';
import type { DomainDeps, ClientInfo } from '../context.js';
import { normalizeEmail, parseEmail } from '../email-address.js';
import { issueEmailToken } from './email-tokens.js';
import { findAccountByEmail, insertPasswordAccount } from './store.js';
import { assertPasswordLength } from '../passwords/password.js';
import { assertNotBreached } from '../passwords/breached-password.js';
import { slugCandidates } from './slug.js';
import { ipSubject } from '../passwords/password-check.js';
import { LIMITS, reserve } from '../limits/rate-limit.js';
import { isHeldForAnother } from '../tunnels/released-names.js';

/** What these flows use of the domain's dependencies. */
type FlowDeps = Pick<DomainDeps, 'breachedPasswords' | 'cache' | 'passwords' | 'clock' | 'db' | 'events' | 'mailContext' | 'mailNotify' | 'webhookNotify' | 'outbox' | 'policy'>;

export interface NewAccount {
  id: string;
  email: string;
  emailVerified: boolean;
  slug: string;
}

export async function signup(
  deps: FlowDeps,
  input: { email: string; password: string },
  client: ClientInfo,
): Promise<NewAccount> {
  const email = parseEmail(input.email);
  assertPasswordLength(input.password);
  // Each sign-up costs a password hash and an email: counted per client network before either.
  await reserve(
    deps.cache,
    { ...LIMITS.signupPerIp, max: deps.policy.signupsPerNetworkPerHour },
    ipSubject(client.ip),
    'Too many sign-ups from this network. Try again later.',
  );
  const emailNormalized = normalizeEmail(email);
  if (await findAccountByEmail(deps.db, emailNormalized)) throw emailTaken();
  await assertNotBreached(deps, input.password);
  const passwordHash = await deps.passwords.hash(input.password);
  const candidates = slugCandidates(email);
  for (let attempt = 0; attempt < 8; attempt++) {
    const slug = candidates.next().value as string;
    if (await isHeldForAnother(deps.db, 'slug', slug, null, deps.clock())) continue;
    try {
      const id = randomUUID();
      return await changeAccount(deps, id, async (tx, change) => {
        const now = deps.clock();
        const created = await insertPasswordAccount(tx, { id, email, emailNormalized, passwordHash, slug, createdAt: now });
        const { token, expiresAt } = await issueEmailToken(tx, now, { accountId: id, kind: 'verify-email' });
        await change.send(email, verifyEmail(deps.mailContext, token), expiresAt);
        await rememberNetwork(tx, id, client.ip, now);
        return created;
      });
    } catch (err) {
      if (violates(err, 'email_normalized', 'emailNormalized')) throw emailTaken();
      if (!violates(err, 'slug')) throw err;
    }
  }
  throw conflict(PROBLEMS.noFreeSlug, 'Could not find a free slug for this email; try again.');
}
