// DELETE /api/account: hard delete in one statement (every owned table cascades), then every
// session's and service token's cache entry is tombstoned so all of them fail on their next request, on any instance.
// What the account's organizations need first is orgs/account-deletion.ts's (the hooks below), so
// that this area knows nothing of them.
import { invalidInput, PROBLEMS } from '../errors.js';
import { tombstone } from '../sessions/session.js';
import type { DomainDeps, ClientInfo, Viewer } from '../context.js';
import { normalizeEmail } from '../email-address.js';
import { confirmPassword } from '../passwords/password-confirmation.js';
import { releaseNames } from '../tunnels/released-names.js';
import { inTransaction, type Tx } from '../store.js';
import { deleteAccountRow, readDeletionLeftovers } from './store.js';
import { deleteAccountModels, deleteTunnelGrants } from '../oauth-revocation/store.js';
import { mcpUrlsOf } from '../tunnels/names.js';

/** What these flows use of the domain's dependencies. */
type FlowDeps = Pick<DomainDeps, 'cache' | 'passwords' | 'clock' | 'db' | 'events'> & { config: { zone: string } };

/** Work of another area around a deletion (its organizations). */
export interface DeletionHooks {
  /** Once the deletion is confirmed, before anything goes: refuse it, or remove what goes first. */
  before?(accountId: string): Promise<void>;
  /** First in the deletion's transaction: refuse it under locks taken there, or record what it ends. */
  within?(tx: Tx, accountId: string): Promise<void>;
  /** Once the deletion has committed. */
  after?(accountId: string): Promise<void>;
}

export async function deleteAccount(
  deps: FlowDeps,
  viewer: Viewer,
  input: { email: string; password: string },
  client: ClientInfo,
  hooks: DeletionHooks = {},
): Promise<void> {
  const account = await confirmPassword(deps, viewer.accountId, input.password, client);
  if (normalizeEmail(input.email) !== account.emailNormalized) {
    throw invalidInput(PROBLEMS.deletionNotConfirmed, 'email', 'The typed email does not match the account email.');
  }
  await hooks.before?.(account.id);
  const { credentials, tunnels } = await inTransaction(deps.db, async (tx) => {
    await hooks.within?.(tx, account.id);
    const { credentials, tunnels } = await readDeletionLeftovers(tx, account.id);
    // Nobody may take over the deleted account's hosts for 30 days: the holds are written (under
    // the names' locks) before the rows that own the names go, so no claim slips in between.
    const now = deps.clock();
    await releaseNames(tx, 'slug', [account.slug], account.id, now);
    const domains = tunnels.flatMap((t) => (t.customDomain ? [t.customDomain] : []));
    await releaseNames(tx, 'domain', domains, account.id, now);
    await deleteAccountRow(tx, account.id);
    // Its OAuth grants, codes and refresh tokens (stored by kind, with no foreign key).
    await deleteAccountModels(tx, account.id);
    // …and the grants others held on its tunnels (API.md section 13a: grants follow the tunnel).
    for (const t of tunnels) await deleteTunnelGrants(tx, t.id, mcpUrlsOf(t, account.slug, deps.config.zone));
    return { credentials, tunnels };
  });
  await tombstone(deps, [...credentials, viewer.tokenHash]);
  await deps.events.emit('account.deleted', { accountId: account.id, slug: account.slug, tunnelIds: tunnels.map((t) => t.id) });
  await hooks.after?.(account.id);
}
