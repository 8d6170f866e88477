// Invitations to an organization (API.md section 18). An admin or owner invites an address with a
// role (only an owner invites an owner); the address gets an `org-invitation` email whose link,
// APP_URL/invitations/accept?token=…, works once for 7 days (the token is random, only its
// SHA-256 is stored). The account whose *verified* address is the invited one (compared
// case-insensitively) accepts it, signed in, and joins with that role; anyone else is told why
// not. The invitee may decline instead (the invitation is revoked), and an admin may revoke it.
//
// Limits: at most MAX_PENDING pending invitations per organization, and LIMITS.orgInvitations
// sent per organization an hour (counted before anything is checked, and in process while the
// shared cache is unreachable: never failing open). Both answer 429 `invitation-limit`.
//
// Every change is a conditional update on "still pending" inside the organization's change
// (its row locked, as for every membership change), so two accepts of one link join once, and a
// revoked or expired invitation cannot be accepted even by a request that looked it up before.
import type { DomainDeps } from '../context.js';
import { badRequest, conflict, forbidden, invalidInput, notFound, notSignedIn, PROBLEMS, rateLimited } from '../errors.js';
import { normalizeEmail, parseEmail } from '../email-address.js';
import { isUuid } from '../ids.js';
import { changeAccount, type PendingChange } from '../activity/account-change.js';
import { orgInvitation } from '../emails/messages.js';
import { consumeAll, LIMITS } from '../limits/rate-limit.js';
import { generateToken, hashToken, isWellFormedToken } from '../../infra/crypto/tokens.js';
import { orgAccess, type Actor, type OrgScope } from '../membership/access.js';
import { recordAudit } from '../membership/audit.js';
import { decide, isOrgRole, type OrgRole, type OrgViewer } from '../membership/roles.js';
import { findOrgById, lockOrg, readPersonEmail, readRole, type OrgRow } from '../membership/store.js';
import { joinIn } from './members.js';
import type { OrgView } from './orgs.js';
import {
  findByTokenHash,
  findPendingById,
  insertInvitation,
  isMemberAddress,
  markAccepted,
  markRevoked,
  pendingCount,
  revokePendingTo,
  selectPending,
  type InvitationRow,
} from './invitations/store.js';

type FlowDeps = Pick<DomainDeps, 'cache' | 'clock' | 'db' | 'events' | 'mailContext' | 'outbox' | 'mailNotify' | 'webhookNotify'>;

/** How long an invitation link works. */
export const INVITATION_TTL_MS = 7 * 24 * 3600_000;
/** Pending invitations an organization may have at once. */
export const MAX_PENDING = 50;

/** An invitation as admins see it. */
export interface Invitation {
  id: string;
  email: string;
  role: OrgRole;
  createdAt: Date;
  expiresAt: Date;
}

/** What the invitee sees before accepting (the accept page). */
export interface InvitationPreview {
  org: { slug: string; name: string };
  email: string;
  role: OrgRole;
  expiresAt: Date;
}

const viewOf = (r: InvitationRow): Invitation => ({ id: r.id, email: r.email, role: r.role, createdAt: r.createdAt, expiresAt: r.expiresAt });

const noSuchInvitation = () => notFound(PROBLEMS.invitationNotFound, 'No such pending invitation.');
const invalidInvitation = () => badRequest(PROBLEMS.invalidInvitation, 'This invitation link is unknown, already used, revoked or expired. Ask the organization for a new invitation.');
const retryAfterSeconds = (until: Date, now: Date) => Math.max(1, Math.ceil((until.getTime() - now.getTime()) / 1000));

/** Invites `email` with `role` (admins and owners; owners for an owner) and sends the link. */
export async function createInvitation(deps: FlowDeps, actor: Actor, slug: string, input: { email: unknown; role: unknown }): Promise<Invitation> {
  const scope = await orgAccess(deps, actor, slug, 'invitations.manage');
  if (!isOrgRole(input.role)) throw invalidInput(PROBLEMS.invalidOrg, 'role', 'A role is owner, admin or member.');
  const role = input.role;
  if (role === 'owner') await orgAccess(deps, actor, slug, 'owners.manage');
  const email = parseEmail(typeof input.email === 'string' ? input.email : '', 'email');
  const emailNormalized = normalizeEmail(email);

  // Counted first, whatever follows: an attempt past either hour's budget is refused.
  const [byOrg, byInviter] = await consumeAll(deps.cache, [
    { limit: LIMITS.orgInvitations, subject: scope.org.id },
    { limit: LIMITS.invitationsPerInviter, subject: actor.viewer.accountId },
  ]);
  if (!byOrg!.allowed) {
    throw rateLimited(PROBLEMS.invitationLimit, byOrg!.retryAfterSeconds, `This organization has sent ${LIMITS.orgInvitations.max} invitations in the last hour, the most it may. Try again later.`);
  }
  if (!byInviter!.allowed) {
    throw rateLimited(PROBLEMS.invitationLimit, byInviter!.retryAfterSeconds, `You have sent ${LIMITS.invitationsPerInviter.max} invitations in the last hour, across your organizations, the most you may. Try again later.`);
  }

  const inviter = await readPersonEmail(deps.db, actor.viewer.accountId);
  if (!inviter) throw notSignedIn();
  const now = deps.clock();
  const token = generateToken();
  const expiresAt = new Date(now.getTime() + INVITATION_TTL_MS);
  const row = await changeAccount(deps, scope.org.id, async (tx, change) => {
    await lockOrg(tx, scope.org.id);
    if (await isMemberAddress(tx, scope.org.id, emailNormalized)) throw conflict(PROBLEMS.alreadyMember, `${email} is already a member of this organization.`, 'email');
    // A new invitation to the same address replaces the pending one (its link stops working).
    for (const id of await revokePendingTo(tx, scope.org.id, emailNormalized, now)) {
      await recordAudit(tx, scope.org.id, actor, 'invitation_revoked', { invitation_id: id, email, reason: 'replaced' }, now);
    }
    const pending = await pendingCount(tx, scope.org.id, now);
    if (pending.count >= MAX_PENDING) {
      throw rateLimited(
        PROBLEMS.invitationLimit,
        pending.firstExpiry ? retryAfterSeconds(pending.firstExpiry, now) : 60,
        `This organization has ${MAX_PENDING} pending invitations, the most it may. Revoke one, or wait until one is accepted or expires.`,
      );
    }
    const row = await insertInvitation(tx, { orgId: scope.org.id, email, emailNormalized, role, tokenHash: hashToken(token), invitedBy: actor.viewer.accountId, createdAt: now, expiresAt });
    await recordAudit(tx, scope.org.id, actor, 'member_invited', { invitation_id: row.id, email, role }, now);
    await change.send(email, orgInvitation(deps.mailContext, token, { orgName: scope.org.name, orgSlug: scope.org.slug, role, invitedBy: inviter.email, expiresAt }), expiresAt);
    return row;
  });
  return viewOf(row);
}

/** The organization's pending invitations, newest first (admins and owners). */
export async function listInvitations(deps: Pick<DomainDeps, 'clock' | 'db'>, actor: Actor, slug: string): Promise<Invitation[]> {
  const scope = await orgAccess(deps, actor, slug, 'invitations.manage');
  return (await selectPending(deps.db, scope.org.id, deps.clock(), MAX_PENDING)).map(viewOf);
}

/** Revokes a pending invitation (admins and owners; owners for an owner's): its link stops working. */
export async function revokeInvitation(deps: FlowDeps, actor: Actor, slug: string, id: string): Promise<void> {
  const scope = await orgAccess(deps, actor, slug, 'invitations.manage');
  const now = deps.clock();
  const found = isUuid(id) ? await findPendingById(deps.db, scope.org.id, id, now) : null;
  if (!found) throw noSuchInvitation();
  if (found.role === 'owner') await orgAccess(deps, actor, slug, 'owners.manage');
  await changeAccount(deps, scope.org.id, async (tx) => {
    if (!(await markRevoked(tx, found.id, now))) throw noSuchInvitation();
    await recordAudit(tx, scope.org.id, actor, 'invitation_revoked', { invitation_id: found.id, email: found.email, role: found.role, reason: 'revoked' }, now);
  });
}

/** The pending invitation a link's token names, with its organization; 400 otherwise. */
async function pendingByToken(deps: Pick<DomainDeps, 'db'>, token: unknown, now: Date): Promise<{ invitation: InvitationRow; org: OrgRow }> {
  const invitation = isWellFormedToken(token) ? await findByTokenHash(deps.db, hashToken(token)) : null;
  if (!invitation || invitation.acceptedAt || invitation.revokedAt || invitation.expiresAt <= now) throw invalidInvitation();
  const org = await findOrgById(deps.db, invitation.orgId);
  if (!org) throw invalidInvitation();
  return { invitation, org };
}

/** What the accept page shows (signed in): the organization, the invited address, the role, the expiry. */
export async function previewInvitation(deps: Pick<DomainDeps, 'clock' | 'db'>, token: unknown): Promise<InvitationPreview> {
  const { invitation, org } = await pendingByToken(deps, token, deps.clock());
  return { org: { slug: org.slug, name: org.name }, email: invitation.email, role: invitation.role, expiresAt: invitation.expiresAt };
}

/** The signed-in person, or why they may not act on this invitation (`verified`: accepting needs the address verified). */
async function invitee(deps: Pick<DomainDeps, 'db'>, actor: Actor, invitation: InvitationRow, verified: boolean): Promise<{ email: string }> {
  const person = await readPersonEmail(deps.db, actor.viewer.accountId);
  if (!person) throw notSignedIn();
  if (person.emailNormalized !== invitation.emailNormalized) {
    throw forbidden(
      PROBLEMS.invitationForOtherAddress,
      `This invitation was sent to ${invitation.email}, and you are signed in as ${person.email}. Sign in with the account whose verified address is ${invitation.email} to answer it.`,
    );
  }
  if (verified && !person.emailVerified) {
    throw forbidden(
      PROBLEMS.invitationForOtherAddress,
      `Your address ${person.email} is not verified yet: open the verification link we sent you, then accept the invitation again.`,
    );
  }
  return { email: person.email };
}

/**
 * Accepts the invitation: the signed-in account joins the organization with its role, once. The
 * invitation is marked accepted in the transaction that adds the member (its audit event, the
 * `org.member` webhook event, the member's own `org_joined` activity).
 */
export async function acceptInvitation(deps: FlowDeps, actor: Actor, token: unknown): Promise<OrgView> {
  const now = deps.clock();
  const { invitation, org } = await pendingByToken(deps, token, now);
  const member = await invitee(deps, actor, invitation, true);
  const scope: OrgScope = { org, role: invitation.role, actor };
  const personal: PendingChange = await changeAccount(deps, org.id, async (tx, change) => {
    if (!(await lockOrg(tx, org.id))) throw invalidInvitation();
    // The invitation stands only while whoever sent it may still invite with that role: an admin
    // removed (or an owner demoted) since cannot let anyone in through it.
    const inviterRole = invitation.invitedBy === null ? null : await readRole(tx, org.id, invitation.invitedBy);
    const inviter: OrgViewer | null = inviterRole === null ? null : { kind: 'member', role: inviterRole, scopes: null };
    if (inviter === null || decide(inviter, 'invitations.manage') !== 'allowed' || (invitation.role === 'owner' && decide(inviter, 'owners.manage') !== 'allowed')) {
      throw badRequest(PROBLEMS.invalidInvitation, 'Whoever sent this invitation can no longer invite people with this role. Ask the organization for a new invitation.');
    }
    if (!(await markAccepted(tx, invitation.id, now))) throw invalidInvitation();
    return joinIn(deps, tx, change, scope, { accountId: actor.viewer.accountId, email: member.email }, invitation.role, now);
  });
  await personal.committed();
  return { ...org, role: invitation.role };
}

/** Declines the invitation (the invited address's account, verified or not): it is revoked. */
export async function declineInvitation(deps: FlowDeps, actor: Actor, token: unknown): Promise<void> {
  const now = deps.clock();
  const { invitation, org } = await pendingByToken(deps, token, now);
  await invitee(deps, actor, invitation, false);
  await changeAccount(deps, org.id, async (tx) => {
    if (!(await markRevoked(tx, invitation.id, now))) throw invalidInvitation();
    await recordAudit(tx, org.id, actor, 'invitation_revoked', { invitation_id: invitation.id, email: invitation.email, role: invitation.role, reason: 'declined' }, now);
  });
}
