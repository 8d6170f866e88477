// POST /auth/login. An unknown email answers exactly like a wrong password (status, body, and
// timing: a hash is burned); the limits are those of every password check (password-check.ts).
import type { DomainDeps, ClientInfo } from '../context.js';
import { wrongCredentials } from '../errors.js';
import { issueSignIn, type SignedIn } from '../sessions/sign-in.js';
import { hasNul, normalizeEmail } from './email-address.js';
import { checkPassword } from './password-check.js';
import { networkOf } from '../sessions/network.js';

export async function login(
  deps: DomainDeps,
  input: { email: string; password: string },
  client: ClientInfo,
): Promise<SignedIn> {
  const emailKey = normalizeEmail(input.email).slice(0, 320);
  const network = networkOf(client.ip) ?? '';
  const account = hasNul(emailKey)
    ? null
    : await deps.db.account.findUnique({
        where: { emailNormalized: emailKey },
        select: {
          id: true,
          email: true,
          emailVerified: true,
          passwordHash: true,
          knownNetworks: { where: { network }, select: { network: true }, take: 1 },
        },
      });
  const subject = { emailKey, passwordHash: account?.passwordHash ?? null, knownNetwork: (account?.knownNetworks.length ?? 0) > 0 };
  const rehash = await checkPassword(deps, subject, input.password, client, wrongCredentials);
  if (!account) throw wrongCredentials(); // not reached: without a hash checkPassword throws
  return issueSignIn(
    deps,
    account,
    client,
    rehash ? (tx) => tx.account.update({ where: { id: account.id }, data: { passwordHash: rehash } }).then(() => {}) : undefined,
  );
}
