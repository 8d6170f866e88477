/// <reference lib="dom" />
// Tunnels: create, delete, the discoverable switch, the public host and a link to the live card;
// who may call /mcp (API.md section 13): anyone, or only people signed in through this server,
// the owner and the addresses and @domains listed. The same page for one's own tunnels and an
// organization's (API.md section 18: its role decides what is offered), and a tunnel moves
// between the two (transfer).
import { explain, gql } from './api.js';
import { graphql, type ResultOf } from '../../documents/graphql.js';
import { section } from './app.js';
import { busy, chip, field, formValues, h, selectField, statusLine, timeEl } from './dom.js';
import { formDone, showFieldError, showFormError } from './forms.js';
import { tunnelHolders } from './grants.js';
import { can, hostSuffix, pageHeading, type Owner } from './owner.js';

const TunnelFields = graphql('fragment TunnelFields on Tunnel { id subdomain host url customDomain discoverable pinnedTools access allowedEmails createdAt }');

type Tunnel = ResultOf<typeof TunnelFields>;

/**
 * A tunnel host's address as people reach it: the way this page was reached (http and the port in
 * local use, https without a port behind the service's edge), so the MCP URL and the card link
 * beside it always agree.
 */
export function tunnelUrl(host: string, path: string): string {
  return `${location.protocol}//${host}${location.port ? `:${location.port}` : ''}${path}`;
}

/** The card on the tunnel host. */
export const cardUrl = (host: string): string => tunnelUrl(host, '/.well-known/mcp/server-card.json');

/** The rule the server holds too: said before a long name is sent (nothing is cut off silently). */
const SUBDOMAIN_MAX = 33;

/** The owner's tunnels (an organization's also tell the caller's role as it is now). */
async function loadTunnels(owner: Owner): Promise<Tunnel[]> {
  if (owner.kind === 'account') {
    const data = await gql(graphql('query Tunnels { me { tunnels { ...TunnelFields } } }', [TunnelFields]));
    return data.me?.tunnels ?? [];
  }
  const { organization } = await gql(graphql('query OrgTunnels($slug: String!) { organization(slug: $slug) { tunnels { edges { node { ...TunnelFields } } } } }', [TunnelFields]), {
    slug: owner.slug,
  });
  return organization.tunnels.edges.map((e) => e.node);
}

async function createFor(owner: Owner, subdomain: string, customDomain: string | null): Promise<Tunnel> {
  if (owner.kind === 'account') {
    const { createTunnel } = await gql(graphql(
      'mutation CreateTunnel($subdomain: String!, $customDomain: String) { createTunnel(subdomain: $subdomain, customDomain: $customDomain) { ...TunnelFields } }',
      [TunnelFields],
    ), { subdomain, customDomain });
    return createTunnel;
  }
  const { createOrganizationTunnel } = await gql(graphql(
    'mutation CreateOrgTunnel($slug: String!, $subdomain: String!, $customDomain: String) { createOrganizationTunnel(slug: $slug, subdomain: $subdomain, customDomain: $customDomain) { ...TunnelFields } }',
    [TunnelFields],
  ), { slug: owner.slug, subdomain, customDomain });
  return createOrganizationTunnel;
}

/** Where a tunnel of `owner` may move: the person's own account and their other organizations. */
function destinations(owner: Owner): [string, string][] {
  const here = owner.kind === 'org' ? owner.slug : null;
  return [
    ...(here !== null ? [['me', 'My account'] as [string, string]] : []),
    ...owner.me.organizations.filter((o) => o.slug !== here).map((o): [string, string] => [o.slug, o.name]),
  ];
}

export async function tunnelsView(owner: Owner): Promise<Node> {
  const status = statusLine();
  const list = h('ul', { class: 'list tunnels' });
  const load = async () => {
    const tunnels = await loadTunnels(owner);
    list.replaceChildren(...(tunnels.length ? tunnels.map(row) : [h('li', { class: 'muted' }, 'No tunnel yet. Create one above.')]));
  };

  const row = (t: Tunnel): HTMLElement => {
    const li_: { el: HTMLElement | null } = { el: null };
    const switchId = `discoverable-${t.id}`;
    const toggle = h('input', { type: 'checkbox', role: 'switch', id: switchId, ...(t.discoverable ? { checked: true } : {}) });
    const state = h('span', { class: 'muted', id: `${switchId}-state` }, t.discoverable ? 'The card is served.' : 'The card answers 404.');
    toggle.setAttribute('aria-describedby', `${switchId}-state`);
    toggle.addEventListener('change', () => {
      const wanted = toggle.checked;
      void busy(li, async () => {
        try {
          const { updateTunnel } = await gql(graphql('mutation Discoverable($id: ID!, $discoverable: Boolean!) { updateTunnel(id: $id, discoverable: $discoverable) { discoverable } }'), {
            id: t.id,
            discoverable: wanted,
          });
          t.discoverable = updateTunnel.discoverable;
          toggle.checked = t.discoverable;
          state.textContent = t.discoverable ? 'The card is served.' : 'The card answers 404.';
          status.show('ok', `${t.host} is ${t.discoverable ? 'now discoverable' : 'no longer discoverable'}.`);
        } catch (err) {
          toggle.checked = !wanted;
          status.show('error', explain(err));
        }
      });
    });
    const access = can(owner, 'tunnels.access')
      ? accessBlock(t, li_, status, owner)
      : h('dl', { class: 'facts access' }, h('dt', {}, 'Access'), h('dd', {}, ACCESS_TEXT[t.access === 'oauth' ? 'oauth' : 'public'](owner)));
    const del = h('button', { type: 'button', class: 'secondary small', 'aria-label': `Delete tunnel ${t.subdomain}` }, 'Delete');
    let armed = false;
    del.addEventListener('click', () => {
      if (!armed) {
        armed = true;
        del.textContent = 'Confirm delete';
        del.classList.add('danger');
        del.setAttribute('aria-label', `Confirm: delete tunnel ${t.subdomain} for good`);
        return;
      }
      void busy(li, async () => {
        try {
          await gql(graphql('mutation DeleteTunnel($id: ID!) { deleteTunnel(id: $id) }'), { id: t.id });
          status.show('ok', `The tunnel ${t.subdomain} is deleted.`);
          await load();
        } catch (err) {
          status.show('error', explain(err));
        }
      });
    });
    const li = h(
      'li',
      { class: 'tunnel' },
      h('div', { class: 'tunnel-head' }, h('h3', {}, t.subdomain), del),
      h(
        'dl',
        { class: 'facts' },
        h('dt', {}, 'Host'),
        h('dd', {}, chip(t.host, { class: 'host' })),
        h('dt', {}, 'MCP endpoint'),
        h('dd', {}, chip(tunnelUrl(t.host, '/mcp'), { class: 'mcp-endpoint' })),
        t.customDomain ? [h('dt', {}, 'Custom domain'), h('dd', {}, chip(t.customDomain))] : null,
        h('dt', {}, 'Tools'),
        h('dd', {}, t.pinnedTools.length ? t.pinnedTools.join(', ') : h('span', { class: 'muted' }, 'none seen yet')),
        h('dt', {}, 'Created'),
        h('dd', {}, timeEl(t.createdAt)),
      ),
      h('div', { class: 'switch' }, toggle, h('label', { for: switchId }, 'Discoverable'), ' ', state),
      h('p', {}, h('a', { href: cardUrl(t.host), class: 'card-link', target: '_blank', rel: 'noopener' }, 'Open the live Server Card', h('span', { class: 'visually-hidden' }, ` of ${t.subdomain} (new tab)`))),
      access,
      transferForm(t),
    );
    li_.el = li;
    return li;
  };

  /** Moving the tunnel to another owner: its host changes, so the button asks to be pressed twice. */
  const transferForm = (t: Tunnel): HTMLElement | null => {
    const to = destinations(owner);
    if (to.length === 0) return null;
    const move = h('button', { type: 'submit', class: 'secondary small' }, 'Move');
    const form = h('form', { novalidate: true, class: 'inline transfer', 'aria-label': `Move tunnel ${t.subdomain}` }, selectField('Move to', { name: 'to' }, to, to[0]![0], 'Its host changes, and what signed in to it through OAuth loses access.'), move);
    let armed: string | null = null;
    form.addEventListener('change', () => {
      armed = null;
      move.textContent = 'Move';
      move.classList.remove('danger');
    });
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      const target = (form.querySelector('select') as HTMLSelectElement).value;
      const name = to.find(([v]) => v === target)?.[1] ?? target;
      if (armed !== target) {
        armed = target;
        move.textContent = `Confirm: move to ${name}`;
        move.classList.add('danger');
        return;
      }
      void busy(form, async () => {
        try {
          const { transferTunnel } = await gql(graphql('mutation TransferTunnel($id: ID!, $to: String!) { transferTunnel(id: $id, to: $to) { host } }'), { id: t.id, to: target });
          await load();
          status.show('ok', `The tunnel ${t.subdomain} moved to ${name}: its host is now ${transferTunnel.host}.`);
        } catch (err) {
          status.show('error', explain(err));
        }
      });
    });
    return form;
  };

  const form = h(
    'form',
    { novalidate: true, class: 'create-tunnel' },
    field(
      'Subdomain',
      { name: 'subdomain', type: 'text', required: true, autocomplete: 'off', autocapitalize: 'none', spellcheck: 'false' },
      h('span', {}, `1 to ${SUBDOMAIN_MAX} lowercase letters, digits and hyphens (no hyphen at the start or the end, no "--"). The host becomes `, chip(`<subdomain>${hostSuffix(owner)}`), '.'),
    ),
    field('Custom domain (optional)', { name: 'customDomain', type: 'text', autocomplete: 'off', autocapitalize: 'none', spellcheck: 'false' }),
    h('button', { type: 'submit' }, 'Create tunnel'),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const v = formValues(form);
    const subdomain = (v.subdomain ?? '').trim();
    const customDomain = (v.customDomain ?? '').trim() || null;
    if ([...subdomain].length > SUBDOMAIN_MAX) {
      return showFieldError(form, status, 'subdomain', `The subdomain must be 1 to ${SUBDOMAIN_MAX} characters long; this one has ${[...subdomain].length}.`);
    }
    void busy(form, async () => {
      try {
        const created = await createFor(owner, subdomain, customDomain);
        formDone(form, status);
        status.show('ok', `The tunnel ${created.host} is created. Turn on "Discoverable" to serve its Server Card.`);
        form.reset();
        await load();
      } catch (err) {
        showFormError(form, status, err);
      }
    });
  });
  await load();
  const listTitle = owner.kind === 'account' ? 'Your tunnels' : `Tunnels of ${owner.name}`;
  return h('div', {}, ...pageHeading(owner, 'Tunnels'), can(owner, 'tunnels.create') ? section('New tunnel', 'new-tunnel', form) : null, status, section(listTitle, 'tunnel-list', list));
}

const ACCESS_TEXT = {
  public: () => 'Anyone who knows the address can call /mcp.',
  oauth: (owner: Owner) =>
    `MCP clients must sign in through this service first (OAuth); only ${owner.kind === 'account' ? 'you' : `the members of ${owner.name}`} and the people listed get in.`,
} as const;

/** The access switch and, for an oauth tunnel, who may sign in: each change is saved at once. */
function accessBlock(t: Tunnel, row: { el: HTMLElement | null }, status: ReturnType<typeof statusLine>, owner: Owner): HTMLElement {
  const id = `oauth-${t.id}`;
  const toggle = h('input', { type: 'checkbox', role: 'switch', id, 'aria-describedby': `${id}-state`, ...(t.access === 'oauth' ? { checked: true } : {}) });
  const state = h('span', { class: 'muted', id: `${id}-state` }, ACCESS_TEXT[t.access === 'oauth' ? 'oauth' : 'public'](owner));
  const people = h('ul', { class: 'plain allowed-emails', 'aria-label': `Who may sign in to ${t.subdomain}` });
  const urls = [t.host, ...(t.customDomain ? [t.customDomain] : [])].map((host) => tunnelUrl(host, '/mcp'));
  const entry = field(
    'Allow an address or a whole @domain',
    { name: 'entry', type: 'text', autocomplete: 'off', autocapitalize: 'none', spellcheck: 'false', placeholder: 'ada@example.com or @example.com' },
    undefined,
    { field: 'allowedEmails' },
  );
  const add = h('form', { novalidate: true, class: 'add-email' }, entry, h('button', { type: 'submit', class: 'secondary small' }, 'Allow'));
  const details = h(
    'div',
    { class: 'oauth-details', hidden: t.access !== 'oauth' },
    h('p', {}, 'MCP clients connect to ', urls.map((u, i) => [i ? ' or ' : '', chip(u, { class: 'mcp-url' })]), '; they find this service in the tunnel’s metadata and ask you to sign in and allow them.'),
    h('p', { class: 'muted' }, owner.kind === 'account' ? 'You can always sign in. Also allowed:' : 'Every member with a verified address can sign in. Also allowed:'),
    people,
    add,
    // Tunnel.accessGrants answers for one's own tunnels only (an organization's: not yet).
    t.access === 'oauth' && owner.kind === 'account' ? tunnelHolders(t.id, status) : null,
  );

  /** `form`: where an error about the list goes (beside its field), for an entry typed there. */
  const save = (changes: { access?: string; allowedEmails?: string[] }, done: string, form?: HTMLElement) =>
    busy(row.el ?? details, async () => {
      try {
        const { updateTunnel } = await gql(
          graphql('mutation TunnelAccess($id: ID!, $access: String, $allowedEmails: [String!]) { updateTunnel(id: $id, access: $access, allowedEmails: $allowedEmails) { access allowedEmails } }'),
          { id: t.id, ...changes },
        );
        t.access = updateTunnel.access;
        t.allowedEmails = updateTunnel.allowedEmails;
        if (form) formDone(form, status);
        status.show('ok', done);
        return true;
      } catch (err) {
        if (form) showFormError(form, status, err);
        else status.show('error', explain(err));
        return false;
      } finally {
        show();
      }
    });

  const show = () => {
    const oauth = t.access === 'oauth';
    toggle.checked = oauth;
    state.textContent = ACCESS_TEXT[oauth ? 'oauth' : 'public'](owner);
    details.hidden = !oauth;
    people.replaceChildren(
      ...(t.allowedEmails.length
        ? t.allowedEmails.map((e) => {
            const remove = h('button', { type: 'button', class: 'link-button', 'aria-label': `Remove ${e}` }, 'Remove');
            remove.addEventListener('click', () => void save({ allowedEmails: t.allowedEmails.filter((x) => x !== e) }, `${e} may no longer sign in to ${t.subdomain}.`));
            return h('li', {}, chip(e), ' ', remove);
          })
        : [h('li', { class: 'muted' }, 'Nobody else yet.')]),
    );
  };

  toggle.addEventListener('change', () => {
    const oauth = toggle.checked;
    void save({ access: oauth ? 'oauth' : 'public' }, oauth ? `${t.host} now needs a sign-in on /mcp.` : `${t.host} is open to anyone again.`);
  });
  add.addEventListener('submit', (e) => {
    e.preventDefault();
    const value = (formValues(add).entry ?? '').trim();
    if (!value) return showFieldError(add, status, 'allowedEmails', 'Enter an email address or @domain.');
    void save({ allowedEmails: [...t.allowedEmails, value] }, `${value} may now sign in to ${t.subdomain}.`, add).then((ok) => {
      if (ok) add.reset();
    });
  });
  show();
  return h('div', { class: 'access' }, h('div', { class: 'switch' }, toggle, h('label', { for: id }, 'Require sign-in (OAuth)'), ' ', state), details);
}
