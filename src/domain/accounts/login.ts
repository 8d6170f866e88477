// POST /auth/login. An unknown email answers exactly like a wrong password (status, body, and
// timing: a hash is burned); the limits are those of every password check (password-check.ts).
// With two-step sign-in on, the right password issues no session: the answer is an mfa_token
// for POST /auth/mfa/verify (mfa-challenge.ts).
import type { Sql } from '../../infra/db/client.js';
import type { DomainDeps, ClientInfo } from '../context.js';
import { wrongCredentials } from '../errors.js';
import { issueSignIn, type SignedIn } from '../sessions/sign-in.js';
import { hasNul, normalizeEmail } from './email-address.js';
import { checkSignInPassword } from '../passwords/password-check.js';
import { networkOf } from '../network.js';
import { createMfaChallenge, type MfaRequired } from '../two-step/mfa-challenge.js';

interface LoginAccount {
  id: string;
  email: string;
  emailVerified: boolean;
  passwordHash: string | null;
  /** The client's network is one the account has signed in from before. */
  knownNetwork: boolean;
  /** Two-step sign-in is on. */
  twoStep: boolean;
}

/**
 * The account and whether it knows the client's network, in one indexed statement straight on
 * node-postgres: Prisma's model API builds, runs and shapes a relation filter in the client, and
 * even its raw path plans and maps each result, which showed in the CPU of a login.
 */
async function findAccount(sql: Sql, emailKey: string, network: string): Promise<LoginAccount | null> {
  const [row] = await sql<LoginAccount>(
    `SELECT a.id, a.email, a.email_verified AS "emailVerified", a.password_hash AS "passwordHash",
      EXISTS (SELECT 1 FROM known_networks n WHERE n.account_id = a.id AND n.network = $1) AS "knownNetwork",
      EXISTS (SELECT 1 FROM totp_credentials t WHERE t.account_id = a.id AND t.enabled_at IS NOT NULL) AS "twoStep"
    FROM accounts a WHERE a.email_normalized = $2`,
    [network, emailKey],
  );
  return row ?? null;
}

export async function login(
  deps: DomainDeps,
  input: { email: string; password: string },
  client: ClientInfo,
): Promise<SignedIn | MfaRequired> {
  const emailKey = normalizeEmail(input.email).slice(0, 320);
  const network = networkOf(client.ip) ?? '';
  const account = hasNul(emailKey) ? null : await findAccount(deps.sql, emailKey, network);
  const subject = { emailKey, passwordHash: account?.passwordHash ?? null, knownNetwork: account?.knownNetwork === true };
  const rehash = await checkSignInPassword(deps, account?.id ?? null, subject, input.password, client, wrongCredentials);
  if (!account) throw wrongCredentials(); // not reached: without a hash checkPassword throws
  if (account.twoStep) {
    if (rehash) await deps.db.account.update({ where: { id: account.id }, data: { passwordHash: rehash } });
    return createMfaChallenge(deps, { accountId: account.id, method: 'password' });
  }
  return issueSignIn(
    deps,
    account,
    client,
    { method: 'password', secondStep: false },
    rehash ? (tx) => tx.account.update({ where: { id: account.id }, data: { passwordHash: rehash } }).then(() => {}) : undefined,
  );
}
