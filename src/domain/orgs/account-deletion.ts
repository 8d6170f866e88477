// Deleting an account that belongs to organizations (API.md section 18): the last owner of an
// organization with other members is refused (409 `ownsOrganizations`, naming them: someone else
// must own them first, or they go first); an organization whose only member is the account goes
// with it, as its own deletion would (removeOrg: tunnels, tokens, webhooks, hosts, held slug).
// Every other organization it belongs to hears of it as of a member leaving: `member_left` in its
// audit log (with `reason: account_deleted`) and `org.member` `left` to its webhooks.
// The account's own deletion is accounts/deletion.ts's; this flow wraps it, so that the accounts
// area never depends on this one.
import type { ClientInfo, Viewer } from '../context.js';
import type { PendingChange } from '../activity/account-change.js';
import type { Actor } from '../membership/access.js';
import { conflict, PROBLEMS } from '../errors.js';
import { deleteAccount, type DeletionHooks } from '../accounts/deletion.js';
import { findOrgById, lockOrgsOf, selectSoleOwnerships } from '../membership/store.js';
import { leaveAllIn } from './members.js';
import { removeOrg } from './orgs.js';

type FlowDeps = Parameters<typeof removeOrg>[0] & Parameters<typeof deleteAccount>[0];

const ownsOrganizations = (slugs: string[]) =>
  conflict(
    PROBLEMS.ownsOrganizations,
    `You are the last owner of ${slugs.length === 1 ? 'the organization' : 'the organizations'} ${slugs.join(', ')}, with other members: make one of them an owner, or delete the organization, before deleting your account.`,
  );

export async function deleteAccountWithOrgs(deps: FlowDeps, viewer: Viewer, input: { email: string; password: string }, client: ClientInfo): Promise<void> {
  await deleteAccount(deps, viewer, input, client, orgDeletionHooks(deps, { viewer, client }));
}

/** What the account's organizations need around its deletion (`actor`: the account, deleting itself). */
export function orgDeletionHooks(deps: FlowDeps, actor: Actor): Required<DeletionHooks> {
  let left: PendingChange[] = [];
  return {
    async before(accountId) {
      const sole = await selectSoleOwnerships(deps.db, accountId);
      const shared = sole.filter((o) => o.others > 0);
      if (shared.length > 0) throw ownsOrganizations(shared.map((o) => o.slug));
      for (const o of sole) {
        const org = await findOrgById(deps.db, o.id);
        if (org) await removeOrg(deps, org);
      }
    },
    async within(tx, accountId) {
      // Again under the organizations' locks, which membership changes take too: an owner who
      // stepped down meanwhile, or an organization created meanwhile, is not left without one.
      await lockOrgsOf(tx, accountId);
      const sole = await selectSoleOwnerships(tx, accountId);
      if (sole.length > 0) throw ownsOrganizations(sole.map((o) => o.slug));
      left = await leaveAllIn(deps, tx, actor, deps.clock());
    },
    async after() {
      for (const change of left) await change.committed();
    },
  };
}
