// Issuing a session after any successful sign-in (password, SSO, confirmed link): the session,
// the last-login record, and the new-network alert, in one transaction.
import type { AccountsDeps, ClientInfo } from '../accounts/context.js';
import { maskIp, networkOf } from '../accounts/network.js';
import { enqueueEmail, type Tx } from '../mail/outbox.js';
import { loginAlert } from '../mail/templates.js';
import { createSession } from './session.js';
import { invalidateAccountView } from '../accounts/account-view.js';

export interface SignedIn {
  token: string;
  sessionId: string;
  expiresAt: Date;
  emailVerified: boolean;
}

/** Records that the account has been seen on this client's network; true when it is new. */
export async function rememberNetwork(tx: Tx, accountId: string, ip: string, now: Date): Promise<boolean> {
  const network = networkOf(ip);
  if (!network) return false;
  const { count } = await tx.knownNetwork.createMany({
    data: [{ accountId, network, firstSeenAt: now }],
    skipDuplicates: true,
  });
  return count === 1;
}

export async function issueSignIn(
  deps: AccountsDeps,
  account: { id: string; email: string; emailVerified: boolean },
  client: ClientInfo,
  extra: (tx: Tx) => Promise<void> = async () => {},
): Promise<SignedIn> {
  const now = deps.clock();
  const ip = maskIp(client.ip);
  const result = await deps.db.$transaction(async (tx) => {
    await extra(tx);
    const session = await createSession(deps, tx, { accountId: account.id, userAgent: client.userAgent, ip });
    await tx.account.update({ where: { id: account.id }, data: { lastLoginAt: now, lastLoginIp: ip } });
    const newNetwork = await rememberNetwork(tx, account.id, client.ip, now);
    if (newNetwork) {
      await enqueueEmail(tx, account.email, loginAlert(deps.mailContext, { at: now, ip, userAgent: client.userAgent }), account.id);
    }
    return { session, newNetwork };
  });
  await invalidateAccountView(deps.cache, account.id);
  if (result.newNetwork) deps.mailNotify();
  return {
    token: result.session.token,
    sessionId: result.session.id,
    expiresAt: result.session.expiresAt,
    emailVerified: account.emailVerified,
  };
}
