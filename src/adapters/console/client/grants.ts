/// <reference lib="dom" />
// Who holds access through OAuth (API.md section 13): on the Security page, the applications this
// account allowed (revoke); on the Tunnels page, per protected tunnel, who holds access (revoke).
import { explain, gql } from './api.js';
import { graphql, type ResultOf } from '../../documents/graphql.js';
import { section } from './app.js';
import { busy, h, statusLine, timeEl } from './dom.js';

const GrantFields = graphql('fragment GrantFields on OAuthGrant { id clientId clientName resource tunnel { id host } scopes createdAt lastUsedAt email }');
type Grant = ResultOf<typeof GrantFields>;

function grantRow(g: Grant, who: string, revoke: () => Promise<void>, status: ReturnType<typeof statusLine>): HTMLElement {
  const button = h('button', { type: 'button', class: 'secondary small', 'aria-label': `Revoke ${who}` }, 'Revoke');
  const li = h(
    'li',
    { class: 'row grant', 'data-grant-id': g.id },
    h(
      'div',
      {},
      h('strong', {}, who),
      h('br'),
      h('span', { class: 'muted' }, g.tunnel ? h('code', {}, g.tunnel.host) : h('code', {}, g.resource), ` · ${g.scopes.join(', ')} · since `, timeEl(g.createdAt), ' · last used ', timeEl(g.lastUsedAt)),
    ),
    button,
  );
  button.addEventListener('click', () => {
    void busy(li, async () => {
      try {
        await revoke();
        status.show('ok', `${who}: access revoked. Its tokens stop working now.`);
      } catch (err) {
        status.show('error', explain(err));
      }
    });
  });
  return li;
}

/** Security page: the applications this account allowed. */
export async function authorizedApplications(): Promise<HTMLElement> {
  const status = statusLine();
  const list = h('ul', { class: 'list grants' });
  const load = async () => {
    const { me } = await gql(graphql('query Grants { me { oauthGrants { ...GrantFields } } }', [GrantFields]));
    const grants = me?.oauthGrants ?? [];
    list.replaceChildren(
      ...(grants.length
        ? grants.map((g) =>
            grantRow(g, g.clientName, async () => {
              await gql(graphql('mutation RevokeGrant($id: ID!) { revokeOAuthGrant(id: $id) }'), { id: g.id });
              await load();
            }, status),
          )
        : [h('li', { class: 'muted' }, 'No application has access through your account.')]),
    );
  };
  await load();
  return section('Authorized applications', 'authorized-applications', h('p', {}, 'MCP clients you allowed to use OAuth-protected tunnels as you.'), list, status);
}

/** Tunnels page: who holds access to one protected tunnel (loaded when shown). */
export function tunnelHolders(tunnelId: string, status: ReturnType<typeof statusLine>): HTMLElement {
  const list = h('ul', { class: 'list grants holders' });
  const load = async () => {
    const { tunnel } = await gql(graphql('query TunnelGrants($id: ID!) { tunnel(id: $id) { accessGrants { ...GrantFields } } }', [GrantFields]), { id: tunnelId });
    const grants = tunnel.accessGrants;
    list.replaceChildren(
      ...(grants.length
        ? grants.map((g) =>
            grantRow(g, `${g.email ?? 'someone'} with ${g.clientName}`, async () => {
              await gql(graphql('mutation RevokeTunnelAccess($t: ID!, $g: ID!) { revokeTunnelAccess(tunnelId: $t, grantId: $g) }'), { t: tunnelId, g: g.id });
              await load();
            }, status),
          )
        : [h('li', { class: 'muted' }, 'Nobody holds access yet.')]),
    );
  };
  void load().catch((err: unknown) => status.show('error', explain(err)));
  return h('div', { class: 'holders-block' }, h('p', { class: 'muted' }, 'Who holds access now:'), list);
}
