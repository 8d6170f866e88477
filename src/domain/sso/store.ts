// SSO's queries: what the callback's decision needs to know about a provider identity (its linked
// account, the account holding its email, the account that started a link or a
// re-authentication), the account made from a new identity, and pending links (made, read by
// their page, confirmed with the password).
import { knownNetworkOf, type DbHandle, type Tx } from '../store.js';

export interface LinkedIdentityRow {
  id: string;
  email: string;
  account: { id: string; email: string; emailVerified: boolean; totpOn: boolean };
}

/** The identity's row and its account, or null for an identity linked nowhere. */
export async function findLinkedIdentity(db: DbHandle, provider: string, providerUserId: string): Promise<LinkedIdentityRow | null> {
  const row = await db.linkedIdentity.findUnique({
    where: { provider_providerUserId: { provider, providerUserId } },
    select: {
      id: true,
      email: true,
      account: { select: { id: true, email: true, emailVerified: true, totpCredential: { select: { enabledAt: true } } } },
    },
  });
  if (!row) return null;
  const { totpCredential, ...account } = row.account;
  return { id: row.id, email: row.email, account: { ...account, totpOn: totpCredential?.enabledAt != null } };
}

/** Whether the account already has an identity of the provider. */
export async function hasProviderIdentity(db: DbHandle, accountId: string, provider: string): Promise<boolean> {
  const row = await db.linkedIdentity.findUnique({ where: { accountId_provider: { accountId, provider } }, select: { id: true } });
  return row !== null;
}

/** The account holding the email, as the sign-in decision sees it. */
export async function findEmailAccount(
  db: DbHandle,
  emailNormalized: string,
  provider: string,
): Promise<{ id: string; hasPassword: boolean; hasProviderIdentity: boolean } | null> {
  const a = await db.account.findFirst({
    where: { emailNormalized, kind: 'person' },
    select: { id: true, passwordHash: true, linkedIdentities: { where: { provider }, select: { id: true } } },
  });
  return a && { id: a.id, hasPassword: a.passwordHash !== null, hasProviderIdentity: a.linkedIdentities.length > 0 };
}

/** What a re-authentication with a provider needs: two-step on or off, the provider linked or not. */
export async function readReauthAccount(db: DbHandle, accountId: string, provider: string): Promise<{ totpOn: boolean; linked: boolean } | null> {
  const a = await db.account.findUnique({
    where: { id: accountId },
    select: { totpCredential: { select: { enabledAt: true } }, linkedIdentities: { where: { provider }, select: { id: true } } },
  });
  return a && { totpOn: a.totpCredential?.enabledAt != null, linked: a.linkedIdentities.length > 0 };
}

/** The account made from a new identity: no password, the identity linked. */
export async function insertSsoAccount(
  tx: Tx,
  account: { id: string; email: string; emailNormalized: string; emailVerified: boolean; slug: string; createdAt: Date },
  identity: { provider: string; providerUserId: string },
): Promise<void> {
  await tx.account.create({ data: account });
  await tx.linkedIdentity.create({
    data: { accountId: account.id, provider: identity.provider, providerUserId: identity.providerUserId, email: account.email, linkedAt: account.createdAt },
  });
}

export async function insertPendingLink(
  db: DbHandle,
  link: { accountId: string; tokenHash: string; provider: string; providerUserId: string; providerEmail: string; createdAt: Date; expiresAt: Date },
): Promise<void> {
  await db.pendingLink.create({ data: link });
}

/** What the link-account page shows of a pending link. */
export async function readPendingLinkSummary(
  db: DbHandle,
  tokenHash: string,
): Promise<{ provider: string; providerEmail: string; usedAt: Date | null; expiresAt: Date; accountEmail: string } | null> {
  const link = await db.pendingLink.findUnique({
    where: { tokenHash },
    select: { provider: true, providerEmail: true, usedAt: true, expiresAt: true, account: { select: { email: true } } },
  });
  return link && { provider: link.provider, providerEmail: link.providerEmail, usedAt: link.usedAt, expiresAt: link.expiresAt, accountEmail: link.account.email };
}

export interface PendingLinkToConfirm {
  id: string;
  provider: string;
  usedAt: Date | null;
  expiresAt: Date;
  account: { id: string; email: string; emailVerified: boolean; passwordHash: string | null; totpOn: boolean; knownNetwork: boolean };
}

/** A pending link with what its confirmation checks of the account (password, two-step, the client's network). */
export async function readPendingLinkToConfirm(db: DbHandle, tokenHash: string, ip: string): Promise<PendingLinkToConfirm | null> {
  const link = await db.pendingLink.findUnique({
    where: { tokenHash },
    select: {
      id: true,
      provider: true,
      usedAt: true,
      expiresAt: true,
      account: {
        select: {
          id: true,
          email: true,
          emailVerified: true,
          passwordHash: true,
          totpCredential: { select: { enabledAt: true } },
          knownNetworks: knownNetworkOf(ip),
        },
      },
    },
  });
  if (!link) return null;
  const { totpCredential, knownNetworks, ...account } = link.account;
  return { ...link, account: { ...account, totpOn: totpCredential?.enabledAt != null, knownNetwork: knownNetworks.length > 0 } };
}
