/// <reference lib="dom" />
// The page an invitation's link opens, APP_URL/invitations/accept?token=… (API.md section 18).
// Signed out, the console sends the visitor to sign in and back here (main.ts). Signed in, it
// shows the organization, the role, the invited address and the expiry, with Accept and Decline;
// then the outcome in words: joined (with a way into the organization), declined, or why not (the
// server's reason: another address, or this address not verified yet, with the resend button),
// and a link that is unknown, used, revoked or expired.
import { ApiError, explain, gql } from './api.js';
import { graphql, type ResultOf } from '../../documents/graphql.js';
import { link, section, type Me } from './app.js';
import { busy, chip, h, statusLine, timeEl, type StatusLine } from './dom.js';
import { resendVerificationButton } from './resend-verification.js';

const Lookup = graphql('query Invitation($token: String!) { invitation(token: $token) { org { slug name } email role expiresAt } }');
type Invitation = NonNullable<ResultOf<typeof Lookup>['invitation']>;

const ROLE_TEXT: Record<string, string> = {
  owner: 'Everything, including the organization’s slug, its owners and its deletion.',
  admin: 'Members (other than owners), invitations, tunnels, tokens, webhooks and the audit log.',
  member: 'Creates, changes and deletes the organization’s tunnels, and sees its members.',
};

const TITLE = 'Invitation';

const heading = (text: string) => h('h1', { tabindex: -1 }, text);

/** A link that cannot be used (none in the address, or the server's 400): what to do instead. */
function deadLink(message: string): HTMLElement {
  return h(
    'div',
    { class: 'narrow' },
    heading(TITLE),
    h('p', { class: 'status error', role: 'alert', id: 'invitation-outcome' }, message),
    h('p', {}, 'Ask an admin of the organization to invite you again. ', link('/account', 'Go to your account')),
  );
}

export async function invitationView(me: Me): Promise<Node> {
  const token = new URLSearchParams(location.search).get('token') ?? '';
  if (!token) return deadLink('This address has no invitation in it. Open the link from the invitation email again.');
  let invitation: Invitation;
  try {
    invitation = (await gql(Lookup, { token })).invitation;
  } catch (err) {
    if (err instanceof ApiError && err.code === 'BAD_REQUEST') return deadLink(err.message);
    throw err;
  }
  const status = statusLine();
  status.id = 'invitation-outcome';
  const root = h('div', { class: 'narrow' });
  root.append(heading(`Join ${invitation.org.name}?`), section('The invitation', 'invitation', facts(invitation, me), decision(token, invitation, me, root, status)), status);
  return root;
}

function facts(invitation: Invitation, me: Me): HTMLElement {
  return h(
    'dl',
    { class: 'facts' },
    h('dt', {}, 'Organization'),
    h('dd', {}, h('strong', {}, invitation.org.name), ' ', chip(invitation.org.slug)),
    h('dt', {}, 'Your role'),
    h('dd', {}, h('strong', {}, invitation.role), h('br', {}), h('span', { class: 'muted' }, ROLE_TEXT[invitation.role] ?? '')),
    h('dt', {}, 'Sent to'),
    h('dd', {}, chip(invitation.email)),
    h('dt', {}, 'Signed in as'),
    h('dd', {}, chip(me.email)),
    h('dt', {}, 'Expires'),
    h('dd', {}, timeEl(invitation.expiresAt)),
  );
}

function decision(token: string, invitation: Invitation, me: Me, root: HTMLElement, status: StatusLine): HTMLElement {
  const accept = h('button', { type: 'button', id: 'accept-invitation' }, 'Accept');
  const decline = h('button', { type: 'button', class: 'secondary', id: 'decline-invitation' }, 'Decline');
  const actions = h('div', { class: 'actions' }, accept, decline);
  /** The answer is final (joined, declined, or the link is dead): the buttons go, the link leaves the address bar. */
  const settled = (kind: 'ok' | 'info' | 'error', title: string, ...text: (string | Node)[]) => {
    actions.remove();
    history.replaceState(null, '', '/invitations/accept');
    status.show(kind, text);
    status.setAttribute('role', kind === 'error' ? 'alert' : 'status');
    const h1 = root.querySelector<HTMLElement>('h1');
    if (h1) {
      h1.textContent = title;
      h1.focus();
    }
  };
  const refused = (err: unknown) => {
    if (!(err instanceof ApiError)) return status.show('error', explain(err));
    if (err.code === 'BAD_REQUEST') return settled('error', TITLE, `${err.message} `, link('/account', 'Go to your account'));
    // FORBIDDEN: the server says why (another address, or not verified yet); unverified, the resend is here.
    const unverified = err.code === 'FORBIDDEN' && !me.emailVerified && me.email.toLowerCase() === invitation.email.toLowerCase();
    status.show('error', unverified ? [h('p', {}, err.message), h('div', { class: 'actions' }, resendVerificationButton(me.email, status, 'Resend the verification email', { id: 'invitation-resend' }))] : err.message);
  };
  accept.addEventListener('click', () => {
    void busy(actions, async () => {
      status.clear();
      try {
        const { acceptInvitation: org } = await gql(graphql('mutation AcceptInvitation($token: String!) { acceptInvitation(token: $token) { slug name role } }'), { token });
        settled('ok', `You joined ${org.name}`, `You joined ${org.name} as ${org.role}. `, link(`/orgs/${encodeURIComponent(org.slug)}/tunnels`, `Open ${org.name}`));
      } catch (err) {
        refused(err);
      }
    });
  });
  decline.addEventListener('click', () => {
    void busy(actions, async () => {
      status.clear();
      try {
        await gql(graphql('mutation DeclineInvitation($token: String!) { declineInvitation(token: $token) }'), { token });
        settled('info', 'Invitation declined', `Declined: you did not join ${invitation.org.name}, and the link no longer works. `, link('/account', 'Go to your account'));
      } catch (err) {
        refused(err);
      }
    });
  });
  return actions;
}
