/// <reference lib="dom" />
// The consent page of the authorization server (API.md sections 13 and 13a): an MCP client asks for
// access to one of the user's (or someone else's) OAuth-protected tunnels. It shows the
// application, where the answer goes, the tunnel and the scopes; Allow or Deny send the browser
// back to the application. Allowing needs a recent sign-in: when the server asks for one, the
// console's confirmation dialog does, then Allow goes on. A person not allowed on the tunnel sees
// why in their own terms (an unverified address must be verified first; otherwise the owner must
// add it) and can only deny.
import { explain, gql } from './api.js';
import { graphql, type ResultOf } from '../../documents/graphql.js';
import { section, type Me } from './app.js';
import { busy, chip, h, statusLine, type StatusLine } from './dom.js';
import { ReauthCancelled, withRecentAuth } from './reauth.js';
import { resendVerificationButton } from './resend-verification.js';

const Lookup = graphql('query OAuthRequest($id: ID!) { oauthRequest(id: $id) { clientId clientName redirectHost resource tunnel { id host } scopes allowed } }');
type Request = NonNullable<ResultOf<typeof Lookup>['oauthRequest']>;

const SCOPE_TEXT: Record<string, string> = { mcp: 'Use the MCP server of this tunnel (its tools and resources) as you' };

const REAUTH_REASON = 'Allowing an application to use your tunnel needs a recent sign-in.';

type Viewer = Pick<Me, 'email' | 'emailVerified'>;

export async function consentView(me: Viewer): Promise<Node> {
  const id = new URLSearchParams(location.search).get('request') ?? '';
  if (!id) return h('div', {}, h('h1', { tabindex: -1 }, 'Allow access?'), h('p', { class: 'status error', role: 'alert' }, 'This link has no request. Start again from the application.'));
  const { oauthRequest: r } = await gql(Lookup, { id });
  const root = h('div', {});
  let status = statusLine();
  const show = (request: Request, viewer: Viewer) => {
    status = statusLine();
    root.replaceChildren(
      h('h1', { tabindex: -1 }, `Allow ${request.clientName} to use ${request.tunnel.host}?`),
      section('The request', 'consent', describe(request, viewer, status, () => void recheck(true)), decision(id, request, status)),
      status,
    );
  };
  // The address verified in another tab (or on another device): the request is looked at again.
  const recheck = async (asked: boolean): Promise<void> => {
    try {
      const { me: now } = await gql(graphql('query ConsentVerified { me { email emailVerified } }'));
      if (!now?.emailVerified) {
        if (asked) status.show('info', 'Your address is not verified yet. Open the link in the email we sent you, then try again.');
        return;
      }
      document.removeEventListener('visibilitychange', onVisible);
      const { oauthRequest: again } = await gql(Lookup, { id });
      show(again, now);
      status.show('ok', again.allowed ? 'Your address is verified. You can allow this request now.' : 'Your address is verified.');
      if (asked) root.querySelector<HTMLElement>('h1')?.focus();
    } catch (err) {
      if (asked) status.show('error', explain(err));
    }
  };
  const onVisible = () => {
    if (!root.isConnected) return document.removeEventListener('visibilitychange', onVisible);
    if (document.visibilityState === 'visible') void recheck(false);
  };
  show(r, me);
  if (!r.allowed && !me.emailVerified) document.addEventListener('visibilitychange', onVisible);
  return root;
}

function describe(r: Request, me: Viewer, status: StatusLine, recheck: () => void): HTMLElement {
  return h(
    'div',
    { class: 'consent-request' },
    h(
      'dl',
      { class: 'facts' },
      h('dt', {}, 'Application'),
      h('dd', {}, h('strong', {}, r.clientName), r.clientName !== r.clientId ? [' ', h('span', { class: 'muted' }, `(${r.clientId})`)] : null),
      h('dt', {}, 'Sends you back to'),
      h('dd', {}, chip(r.redirectHost)),
      h('dt', {}, 'Tunnel'),
      h('dd', {}, chip(r.resource)),
      h('dt', {}, 'It may'),
      h('dd', {}, h('ul', { class: 'plain chips-after' }, r.scopes.map((s) => h('li', {}, SCOPE_TEXT[s] ?? s, ' ', chip(s))))),
    ),
    r.allowed
      ? h('p', { class: 'muted' }, `Signed in as ${me.email}. Allow only applications you started yourself.`)
      : me.emailVerified
        ? h('p', { class: 'status error', role: 'alert', id: 'not-allowed' }, `Your account (${me.email}) is not allowed on this tunnel. Ask its owner to add your address, then try again. You can only deny this request.`)
        : verifyFirst(me, status, recheck),
  );
}

/**
 * An unverified account: tunnels let in verified addresses only (API.md 13a). The same resend as
 * the console's banner, and a way to look again once the link is followed.
 */
function verifyFirst(me: Viewer, status: StatusLine, recheck: () => void): HTMLElement {
  const resend = resendVerificationButton(me.email, status, 'Resend the verification email', { id: 'consent-resend' });
  const again = h('button', { type: 'button', class: 'small secondary', id: 'consent-recheck' }, 'I have verified it');
  again.addEventListener('click', recheck);
  return h(
    'div',
    { class: 'status error verify-first' },
    h('p', { role: 'alert', id: 'not-allowed' }, h('strong', {}, 'Verify your email address first.'), ' Only verified addresses can be allowed on a tunnel, and yours (', me.email, ') is not verified yet. Open the link we sent you, then come back to this page. Until then you can only deny this request.'),
    h('div', { class: 'actions' }, resend, again),
  );
}

function decision(id: string, r: Request, status: StatusLine): HTMLElement {
  const deny = h('button', { type: 'button', class: r.allowed ? 'secondary' : undefined, id: 'deny' }, 'Deny');
  const allow = r.allowed ? h('button', { type: 'button', id: 'allow' }, 'Allow') : null;
  const actions = h('div', { class: 'actions' }, allow, deny);
  const approve = () => gql(graphql('mutation ApproveOAuth($id: ID!) { approveOAuthRequest(id: $id) }'), { id }).then((d) => d.approveOAuthRequest);
  const refuse = () => gql(graphql('mutation DenyOAuth($id: ID!) { denyOAuthRequest(id: $id) }'), { id }).then((d) => d.denyOAuthRequest);
  const answer = (allowing: boolean) =>
    void busy(actions, async () => {
      status.clear();
      try {
        // Allowing may need a recent sign-in: the dialog asks for it, then the same request is approved.
        const to = allowing ? await withRecentAuth(approve, REAUTH_REASON, { kind: 'consent', request: id }) : await refuse();
        status.show('info', allowing ? 'Allowed. Back to the application…' : 'Denied. Back to the application…');
        location.assign(to);
      } catch (err) {
        if (err instanceof ReauthCancelled) status.show('info', 'Not allowed yet: nothing was sent to the application. Allow or Deny when you are ready.');
        else status.show('error', explain(err));
      }
    });
  allow?.addEventListener('click', () => answer(true));
  deny.addEventListener('click', () => answer(false));
  if (!r.allowed) deny.setAttribute('aria-describedby', 'not-allowed');
  return actions;
}
