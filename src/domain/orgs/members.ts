// An organization's members (API.md section 18): list, change a role, remove, leave, and join
// (through an invitation, invitations.ts). Membership changes of one organization take turns on
// its row, so the last-owner rule holds under concurrent requests: an organization always keeps
// an owner. A change commits with its audit event, the member's own activity event (joining,
// leaving) and the organization's `org.member` webhook event; after it, `account.changed` of the
// organization drops every cached OAuth introspection answer, so a removed member's tokens for
// its tunnels answer inactive at once, on every instance. Sessions and personal tokens need
// nothing more: membership is read on every decision (access.ts).
import type { DomainDeps } from '../context.js';
import { conflict, invalidInput, notFound, PROBLEMS } from '../errors.js';
import { changeAccount, changeIn, type AccountChange, type PendingChange } from '../activity/account-change.js';
import type { Tx } from '../store.js';
import { orgAccess, refuse, type Actor, type OrgScope } from '../membership/access.js';
import { recordAudit } from '../membership/audit.js';
import { decide, isOrgRole, type OrgAction, type OrgRole, type OrgViewer } from '../membership/roles.js';
import { countMembers, countOwners, deleteMember, insertMember, lockOrg, readPersonEmail, readRole, selectMembers, selectOrgsOf, setMemberRole, type MemberRow } from '../membership/store.js';

type FlowDeps = Pick<DomainDeps, 'clock' | 'db' | 'events' | 'outbox' | 'mailNotify' | 'webhookNotify'>;

/** Members an organization has at most (joining past it is refused), so its list is whole. */
export const MAX_MEMBERS = 1000;

export type { MemberRow } from '../membership/store.js';

const noSuchMember = () => notFound(PROBLEMS.memberNotFound, 'No such member.');
const lastOwner = () => conflict(PROBLEMS.lastOwner, 'An organization keeps at least one owner: make someone else owner first.');

export async function listMembers(deps: Pick<DomainDeps, 'db'>, actor: Actor, slug: string): Promise<MemberRow[]> {
  const scope = await orgAccess(deps, actor, slug, 'members.read');
  return selectMembers(deps.db, scope.org.id, MAX_MEMBERS);
}

/** The actor's role, read again under the organization's lock, must still allow `action`. */
async function recheck(tx: Tx, scope: OrgScope, action: OrgAction): Promise<void> {
  const role = await readRole(tx, scope.org.id, scope.actor.viewer.accountId);
  const viewer: OrgViewer = { kind: 'member', role: role ?? 'member', scopes: scope.actor.viewer.scopes };
  if (role === null) throw notFound(PROBLEMS.orgNotFound, 'No such organization.');
  if (decide(viewer, action) !== 'allowed') refuse(action, viewer);
}

/** The `org.member` webhook event's data. */
const memberEvent = (scope: OrgScope, action: 'joined' | 'left' | 'removed' | 'role_changed', member: { accountId: string; email: string }, role: OrgRole | null) => ({
  action,
  org: { id: scope.org.id, slug: scope.org.slug },
  member: { account_id: member.accountId, email: member.email, role },
});

export async function changeRole(deps: FlowDeps, actor: Actor, slug: string, accountId: string, role: unknown): Promise<MemberRow> {
  if (!isOrgRole(role)) throw invalidInput(PROBLEMS.invalidOrg, 'role', 'A role is owner, admin or member.');
  const scope = await orgAccess(deps, actor, slug, 'members.manage');
  const current = await readRole(deps.db, scope.org.id, accountId);
  if (current === null) throw noSuchMember();
  // Owners are an owner's business: making one, or changing one.
  if (current === 'owner' || role === 'owner') await orgAccess(deps, actor, slug, 'owners.manage');
  const person = await readPersonEmail(deps.db, accountId);
  if (!person) throw noSuchMember();
  if (current !== role) {
    const now = deps.clock();
    await changeAccount(deps, scope.org.id, async (tx, change) => {
      await lockOrg(tx, scope.org.id);
      const locked = await readRole(tx, scope.org.id, accountId);
      if (locked === null) throw noSuchMember();
      // Decided again on what the lock holds: the target may have become an owner, the actor lost a role.
      await recheck(tx, scope, locked === 'owner' || role === 'owner' ? 'owners.manage' : 'members.manage');
      if (locked === 'owner' && role !== 'owner' && (await countOwners(tx, scope.org.id)) <= 1) throw lastOwner();
      await setMemberRole(tx, scope.org.id, accountId, role);
      await recordAudit(tx, scope.org.id, actor, 'role_changed', { account_id: accountId, email: person.email, from: locked, to: role }, now);
      await change.publish('org.member', memberEvent(scope, 'role_changed', { accountId, email: person.email }, role), now);
    });
  }
  const members = await selectMembers(deps.db, scope.org.id, MAX_MEMBERS);
  const member = members.find((m) => m.accountId === accountId);
  if (!member) throw noSuchMember();
  return member;
}

/** Removes a member (admins and owners; owners for an owner), or the actor leaves (anyone but the last owner). */
export async function removeMember(deps: FlowDeps, actor: Actor, slug: string, accountId: string): Promise<void> {
  const leaving = accountId === actor.viewer.accountId;
  const scope = await orgAccess(deps, actor, slug, leaving ? 'org.read' : 'members.manage');
  const current = await readRole(deps.db, scope.org.id, accountId);
  if (current === null) throw noSuchMember();
  if (!leaving && current === 'owner') await orgAccess(deps, actor, slug, 'owners.manage');
  const person = await readPersonEmail(deps.db, accountId);
  const email = person?.email ?? '';
  const now = deps.clock();
  const personal = await changeAccount(deps, scope.org.id, async (tx, change) => {
    await lockOrg(tx, scope.org.id);
    const locked = await readRole(tx, scope.org.id, accountId);
    if (locked === null) throw noSuchMember();
    if (!leaving) await recheck(tx, scope, locked === 'owner' ? 'owners.manage' : 'members.manage');
    if (locked === 'owner' && (await countOwners(tx, scope.org.id)) <= 1) throw lastOwner();
    await deleteMember(tx, scope.org.id, accountId);
    await recordAudit(tx, scope.org.id, actor, leaving ? 'member_left' : 'member_removed', { account_id: accountId, email, role: locked }, now);
    await change.publish('org.member', memberEvent(scope, leaving ? 'left' : 'removed', { accountId, email }, null), now);
    return personalEvent(deps, tx, accountId, 'org_left', scope, actor, now);
  });
  await personal.committed();
}

/**
 * Within the deletion of the actor's account (in its transaction `tx`, the organizations already
 * locked): each organization it is still a member of records `member_left` and tells its
 * webhooks `org.member` `left`, as if the member had left. Returns the organizations' changes,
 * to be told once the deletion has committed.
 */
export async function leaveAllIn(deps: FlowDeps, tx: Tx, actor: Actor, now: Date): Promise<PendingChange[]> {
  const accountId = actor.viewer.accountId;
  const email = (await readPersonEmail(tx, accountId))?.email ?? '';
  const changes: PendingChange[] = [];
  for (const org of await selectOrgsOf(tx, accountId)) {
    const change = changeIn(tx, deps, org.id);
    await recordAudit(tx, org.id, actor, 'member_left', { account_id: accountId, email, role: org.role, reason: 'account_deleted' }, now);
    await change.publish('org.member', memberEvent({ org, role: org.role, actor }, 'left', { accountId, email }, null), now);
    changes.push(change);
  }
  return changes;
}

/**
 * Adds the account as a member within the organization's change (`change`, in `tx`: an accepted
 * invitation). Returns the member's own change, to be told once the transaction has committed.
 */
export async function joinIn(
  deps: FlowDeps,
  tx: Tx,
  change: AccountChange,
  scope: OrgScope,
  member: { accountId: string; email: string },
  role: OrgRole,
  now: Date,
): Promise<PendingChange> {
  if ((await readRole(tx, scope.org.id, member.accountId)) !== null) throw conflict(PROBLEMS.alreadyMember, 'You are already a member of this organization.');
  if ((await countMembers(tx, scope.org.id)) >= MAX_MEMBERS) {
    throw conflict(PROBLEMS.memberLimit, `This organization has ${MAX_MEMBERS} members, the most it may. Ask it to remove someone, then accept again.`);
  }
  await insertMember(tx, scope.org.id, member.accountId, role, now);
  await recordAudit(tx, scope.org.id, scope.actor, 'member_joined', { account_id: member.accountId, email: member.email, role }, now);
  await change.publish('org.member', memberEvent(scope, 'joined', member, role), now);
  return personalEvent(deps, tx, member.accountId, 'org_joined', scope, scope.actor, now);
}

/** The member's own activity (joining or leaving, the organization named), in `tx`; told after the commit. */
async function personalEvent(deps: FlowDeps, tx: Tx, accountId: string, type: 'org_joined' | 'org_left', scope: OrgScope, actor: Actor, now: Date): Promise<PendingChange> {
  const personal = changeIn(tx, deps, accountId);
  await personal.record({ type, client: actor.client, at: now, detail: { org: scope.org.slug } });
  return personal;
}
