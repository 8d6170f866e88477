/// <reference lib="dom" />
// Access tokens (API.md section 12): create one for the CLI or a CI job (name, scopes, expiry),
// copy its secret while it is shown (once), see when each was last used, revoke. The same page
// for an organization's tokens (API.md section 18): they reach its tunnels only and outlive the
// member who made them.
import { explain, gql } from './api.js';
import { graphql, type ResultOf } from '../../documents/graphql.js';
import { link, section } from './app.js';
import { busy, checkGroup, chip, field, formValues, h, selectField, statusLine, timeEl } from './dom.js';
import { formDone, showFormError } from './forms.js';
import { pageHeading, type Owner } from './owner.js';
import { withRecentAuth } from './reauth.js';

const TokenFields = graphql('fragment TokenFields on ServiceToken { id name scopes createdAt expiresAt lastUsedAt lastUsedIp }');

/** `madeBy`: for an organization's token, who made it (the address of a member, or that they left). */
type Token = ResultOf<typeof TokenFields> & { madeBy?: string };

const SCOPES: [string, string][] = [
  ['tunnels:read', 'Read tunnels'],
  ['tunnels:write', 'Create, change and delete tunnels'],
  ['account:read', 'Read the account profile'],
];

/** An organization's token reaches its tunnels only. */
const scopesOf = (owner: Owner) => (owner.kind === 'account' ? SCOPES : SCOPES.filter(([s]) => s.startsWith('tunnels')));

/** The owner's tokens, their creation and revocation: the person's own, or the organization's. */
function tokenApi(owner: Owner) {
  if (owner.kind === 'account') {
    return {
      list: async () => (await gql(graphql('query Tokens { me { serviceTokens { ...TokenFields } } }', [TokenFields]))).me?.serviceTokens ?? [],
      create: async (v: { name: string; scopes: string[]; expiresInDays: number | null }) =>
        (await gql(graphql(
          'mutation CreateToken($name: String!, $scopes: [String!]!, $expiresInDays: Int) { createServiceToken(name: $name, scopes: $scopes, expiresInDays: $expiresInDays) { token serviceToken { ...TokenFields } } }',
          [TokenFields],
        ), v)).createServiceToken,
      revoke: async (id: string) => void (await gql(graphql('mutation RevokeToken($id: ID!) { revokeServiceToken(id: $id) }'), { id })),
    };
  }
  const slug = owner.slug;
  return {
    list: async (): Promise<Token[]> => {
      const { organization } = await gql(
        graphql('query OrgTokens($slug: String!) { organization(slug: $slug) { tokens { edges { node { ...TokenFields createdBy } } } members { edges { node { accountId email } } } } }', [TokenFields]),
        { slug },
      );
      const emails = new Map(organization.members.edges.map((e) => [e.node.accountId, e.node.email]));
      return organization.tokens.edges.map(({ node }) => ({ ...node, madeBy: (node.createdBy && emails.get(node.createdBy)) || 'a former member' }));
    },
    create: async (v: { name: string; scopes: string[]; expiresInDays: number | null }) =>
      (await gql(graphql(
        'mutation CreateOrgToken($slug: String!, $name: String!, $scopes: [String!]!, $expiresInDays: Int) { createOrganizationToken(slug: $slug, name: $name, scopes: $scopes, expiresInDays: $expiresInDays) { token serviceToken { ...TokenFields } } }',
        [TokenFields],
      ), { slug, ...v })).createOrganizationToken,
    revoke: async (id: string) => void (await gql(graphql('mutation RevokeOrgToken($slug: String!, $id: ID!) { revokeOrganizationToken(slug: $slug, id: $id) }'), { slug, id })),
  };
}

const EXPIRY: [string, string][] = [
  ['30', '30 days'],
  ['90', '90 days'],
  ['366', 'One year'],
  ['', 'No expiry'],
];

/** Where REST users read about the paths a token reaches: the reference page when the server
 *  serves it (API_DOCS), the OpenAPI document always. */
function apiReference(): HTMLElement {
  const docs = document.querySelector<HTMLMetaElement>('meta[name="api-docs"]')?.content;
  const spec = h('a', { href: '/openapi.json' }, 'OpenAPI document');
  return docs
    ? h('p', { id: 'api-reference' }, 'Calling the REST API with a token? Read the ', h('a', { href: docs }, 'API reference'), ' (or the ', spec, ').')
    : h('p', { id: 'api-reference' }, 'Calling the REST API with a token? Its paths are in the ', spec, '.');
}

export async function tokensView(owner: Owner): Promise<Node> {
  const api = tokenApi(owner);
  const status = statusLine();
  const list = h('ul', { class: 'list tokens' });
  const revealed = h('div', { class: 'revealed', hidden: true });

  const load = async () => {
    const tokens = await api.list();
    list.replaceChildren(...(tokens.length ? tokens.map(row) : [h('li', { class: 'muted' }, 'No access token yet.')]));
  };

  const row = (t: Token): HTMLElement => {
    const expired = t.expiresAt !== null && Date.parse(t.expiresAt) <= Date.now();
    const revoke = h('button', { type: 'button', class: 'secondary small', 'aria-label': `Revoke token ${t.name}` }, 'Revoke');
    revoke.addEventListener('click', () => {
      void busy(li, async () => {
        try {
          await api.revoke(t.id);
          status.show('ok', `The token "${t.name}" is revoked: it no longer works anywhere.`);
          await load();
        } catch (err) {
          status.show('error', explain(err));
        }
      });
    });
    const li = h(
      'li',
      { class: 'tunnel token', 'data-token-id': t.id },
      h('div', { class: 'tunnel-head' }, h('h3', {}, t.name), revoke),
      h(
        'dl',
        { class: 'facts' },
        h('dt', {}, 'Scopes'),
        h('dd', { class: 'chips' }, t.scopes.map((s) => chip(s))),
        h('dt', {}, 'Created'),
        h('dd', {}, timeEl(t.createdAt)),
        h('dt', {}, 'Expires'),
        h('dd', {}, t.expiresAt ? [timeEl(t.expiresAt), expired ? ' (expired)' : ''] : 'never'),
        t.madeBy ? [h('dt', {}, 'Made by'), h('dd', {}, t.madeBy)] : null,
        h('dt', {}, 'Last used'),
        h('dd', {}, t.lastUsedAt ? [timeEl(t.lastUsedAt), ` from ${t.lastUsedIp ?? 'an unknown network'}`] : h('span', { class: 'muted' }, 'never')),
      ),
    );
    return li;
  };

  const form = h(
    'form',
    { novalidate: true, class: 'create-token' },
    field('Name', { name: 'name', type: 'text', required: true, autocomplete: 'off', placeholder: 'CI deploy' }, 'What uses it, so you recognise it later.'),
    checkGroup('Scopes', 'scope', scopesOf(owner), { field: 'scopes', checked: (value) => value.startsWith('tunnels') }),
    selectField('Expires after', { name: 'expiry' }, EXPIRY, '90', undefined, { field: 'expiresInDays' }),
    h('button', { type: 'submit' }, 'Create token'),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const v = formValues(form);
    const chosen = [...form.querySelectorAll<HTMLInputElement>('input[name="scope"]:checked')].map((i) => i.value);
    const days = (form.querySelector('select[name="expiry"]') as HTMLSelectElement).value;
    void busy(form, async () => {
      try {
        const created = await withRecentAuth(
          () => api.create({ name: (v.name ?? '').trim(), scopes: chosen, expiresInDays: days ? Number(days) : null }),
          'Creating an access token needs a recent sign-in.',
        );
        formDone(form, status);
        show(created.serviceToken.name, created.token);
        form.reset();
        await load();
      } catch (err) {
        showFormError(form, status, err);
      }
    });
  });

  /** The secret, shown once with a copy button; gone when the page is left. */
  const show = (name: string, token: string) => {
    const value = h('input', { type: 'text', readonly: true, value: token, class: 'secret', 'aria-label': `The token "${name}"` });
    const copy = h('button', { type: 'button', class: 'secondary small' }, 'Copy');
    copy.addEventListener('click', () => {
      value.select();
      void navigator.clipboard?.writeText(token).then(
        () => status.show('ok', 'Copied.'),
        () => status.show('info', 'Select the token and copy it.'),
      );
    });
    revealed.replaceChildren(
      h('p', { role: 'status' }, `Your new token "${name}". Copy it now: it is not shown again.`),
      h('div', { class: 'copy-row' }, value, copy),
      h('p', { class: 'muted' }, 'Use it as ', chip('Authorization: Bearer <token>'), '.'),
    );
    revealed.hidden = false;
  };

  await load();
  const intro =
    owner.kind === 'account'
      ? [
          h('p', { class: 'muted' }, 'Tokens let the tunnel CLI and CI jobs act for you, limited to their scopes. They never manage sessions, tokens or security settings.'),
          h('p', {}, 'Signing in the tunnel CLI? It shows a code: ', link('/device', 'enter it here'), '.'),
        ]
      : [h('p', { class: 'muted' }, `A token of ${owner.name} reaches its tunnels only, limited to its scopes, and keeps working when the member who made it leaves. It never manages members, tokens or webhooks.`)];
  return h(
    'div',
    {},
    ...pageHeading(owner, 'Access tokens'),
    intro,
    apiReference(),
    section('New token', 'new-token', form, revealed),
    status,
    section(owner.kind === 'account' ? 'Your tokens' : `Tokens of ${owner.name}`, 'token-list', list),
  );
}
