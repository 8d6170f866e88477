// The password's queries: what the confirmation of a sensitive change reads of the account, and
// the hash written back when the stored one used outdated parameters.
import { knownNetworkOf, type DbHandle } from '../store.js';

export interface PasswordAccount {
  id: string;
  email: string;
  emailNormalized: string;
  slug: string;
  passwordHash: string | null;
  /** Whether the client's network is one the account has signed in from (the sign-in limits). */
  knownNetwork: boolean;
}

export async function readPasswordAccount(db: DbHandle, accountId: string, ip: string): Promise<PasswordAccount | null> {
  const a = await db.account.findUnique({
    where: { id: accountId },
    select: {
      id: true,
      email: true,
      emailNormalized: true,
      slug: true,
      passwordHash: true,
      knownNetworks: knownNetworkOf(ip),
    },
  });
  if (!a) return null;
  const { knownNetworks, ...rest } = a;
  return { ...rest, knownNetwork: knownNetworks.length > 0 };
}

export async function setPasswordHash(db: DbHandle, accountId: string, passwordHash: string): Promise<void> {
  await db.account.update({ where: { id: accountId }, data: { passwordHash } });
}
