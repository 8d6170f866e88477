/// <reference lib="dom" />
// The consent page of the authorization server (API.md section 13): an MCP client asks for access
// to one of the user's (or someone else's) OAuth-protected tunnels. It shows the application, where
// the answer goes, the tunnel and the scopes; Allow or Deny send the browser back to the
// application. A person not allowed on the tunnel sees why and can only deny.
import { explain, gql } from './api.js';
import { graphql, type ResultOf } from '../../documents/graphql.js';
import { section } from './app.js';
import { busy, h, statusLine } from './dom.js';

const Lookup = graphql('query OAuthRequest($id: ID!) { oauthRequest(id: $id) { clientId clientName redirectHost resource tunnel { id host } scopes allowed } }');
type Request = NonNullable<ResultOf<typeof Lookup>['oauthRequest']>;

const SCOPE_TEXT: Record<string, string> = { mcp: 'Use the MCP server of this tunnel (its tools and resources) as you' };

export async function consentView(me: { email: string }): Promise<Node> {
  const id = new URLSearchParams(location.search).get('request') ?? '';
  const status = statusLine();
  if (!id) return h('div', {}, h('h1', { tabindex: -1 }, 'Allow access?'), h('p', { class: 'status error', role: 'alert' }, 'This link has no request. Start again from the application.'));
  const { oauthRequest: r } = await gql(Lookup, { id });
  return h('div', {}, h('h1', { tabindex: -1 }, `Allow ${r.clientName} to use ${r.tunnel.host}?`), section('The request', 'consent', describe(r, me), decision(id, r, status)), status);
}

function describe(r: Request, me: { email: string }): HTMLElement {
  return h(
    'div',
    { class: 'consent-request' },
    h(
      'dl',
      { class: 'facts' },
      h('dt', {}, 'Application'),
      h('dd', {}, h('strong', {}, r.clientName), r.clientName !== r.clientId ? [' ', h('span', { class: 'muted' }, `(${r.clientId})`)] : null),
      h('dt', {}, 'Sends you back to'),
      h('dd', {}, h('code', {}, r.redirectHost)),
      h('dt', {}, 'Tunnel'),
      h('dd', {}, h('code', {}, r.resource)),
      h('dt', {}, 'It may'),
      h('dd', {}, h('ul', { class: 'plain' }, r.scopes.map((s) => h('li', {}, SCOPE_TEXT[s] ?? s, ' (', h('code', {}, s), ')')))),
    ),
    r.allowed
      ? h('p', { class: 'muted' }, `Signed in as ${me.email}. Allow only applications you started yourself.`)
      : h('p', { class: 'status error', role: 'alert', id: 'not-allowed' }, `Your account (${me.email}) is not allowed on this tunnel. Ask its owner to add your address, then try again. You can only deny this request.`),
  );
}

function decision(id: string, r: Request, status: ReturnType<typeof statusLine>): HTMLElement {
  const allow = h('button', { type: 'button', id: 'allow', ...(r.allowed ? {} : { disabled: true }) }, 'Allow');
  const deny = h('button', { type: 'button', class: 'secondary', id: 'deny' }, 'Deny');
  const actions = h('div', { class: 'actions' }, allow, deny);
  const answer = (approve: boolean) =>
    void busy(actions, async () => {
      try {
        const data = approve
          ? (await gql(graphql('mutation ApproveOAuth($id: ID!) { approveOAuthRequest(id: $id) }'), { id })).approveOAuthRequest
          : (await gql(graphql('mutation DenyOAuth($id: ID!) { denyOAuthRequest(id: $id) }'), { id })).denyOAuthRequest;
        status.show('info', approve ? 'Allowed. Back to the application…' : 'Denied. Back to the application…');
        location.assign(data);
      } catch (err) {
        status.show('error', explain(err));
      }
    });
  allow.addEventListener('click', () => answer(true));
  deny.addEventListener('click', () => answer(false));
  if (!r.allowed) allow.setAttribute('aria-describedby', 'not-allowed');
  return actions;
}
