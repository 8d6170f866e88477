/// <reference lib="dom" />
// Webhooks (API.md section 15): add an endpoint (URL, events, description) and copy its signing
// secret while it is shown (once); per endpoint: send a test event, rotate the secret, turn it
// off or on, delete it, and read its delivery log (status, timing, next attempt) with a retry
// button on each failed attempt. Adding, re-pointing, turning back on and rotating ask for a
// recent sign-in. On a narrow screen each log entry is a card of its own (console.css). The same
// page for an organization's endpoints (API.md section 18): its tunnels' events and its members'.
import { explain, gql } from './api.js';
import { graphql, type ResultOf } from '../../documents/graphql.js';
import { section } from './app.js';
import { busy, checkGroup, chip, field, formValues, h, statusLine, timeEl, type Child } from './dom.js';
import { formDone, showFormError } from './forms.js';
import { pageHeading, type Owner } from './owner.js';
import { ReauthCancelled, withRecentAuth } from './reauth.js';

const WebhookFields = graphql('fragment WebhookFields on Webhook { id url events description enabled disabledReason createdAt }');
const DeliveryFields = graphql('fragment DeliveryFields on WebhookDelivery { id eventId type attempt statusCode error durationMs at nextAttemptAt }');

type Webhook = ResultOf<typeof WebhookFields>;
type Delivery = ResultOf<typeof DeliveryFields>;

const EVENTS: [string, string][] = [
  ['tunnel.created', 'A tunnel is created'],
  ['tunnel.updated', 'A tunnel’s settings change'],
  ['tunnel.deleted', 'A tunnel is deleted'],
  ['tunnel.tools_changed', 'A tunnel’s pinned tools change'],
  ['card.published', 'A Server Card goes public'],
  ['card.unpublished', 'A Server Card stops being served'],
  ['account.security', 'Security activity on your account'],
  ['org.member', 'Members join, leave or change role'],
];

/** A person's endpoints hear of their account's security; an organization's of its members. */
const eventsOf = (owner: Owner) => EVENTS.filter(([e]) => e !== (owner.kind === 'account' ? 'org.member' : 'account.security'));

type NewWebhook = { url: string; events: string[]; description: string };

/** The owner's endpoints and what is done to them: the person's own, or the organization's. */
function webhookApi(owner: Owner) {
  if (owner.kind === 'account') {
    return {
      list: async () => (await gql(graphql('query Webhooks { me { webhooks { ...WebhookFields } } }', [WebhookFields]))).me?.webhooks ?? [],
      deliveries: async (id: string) => (await gql(graphql('query Deliveries($id: ID!) { webhookDeliveries(webhookId: $id, first: 25) { ...DeliveryFields } }', [DeliveryFields]), { id })).webhookDeliveries,
      retry: async (id: string, deliveryId: string) => void (await gql(graphql('mutation RetryDelivery($id: ID!, $deliveryId: ID!) { retryWebhookDelivery(id: $id, deliveryId: $deliveryId) }'), { id, deliveryId })),
      test: async (id: string) => void (await gql(graphql('mutation WebhookTest($id: ID!) { sendWebhookTest(id: $id) }'), { id })),
      rotate: async (id: string) => (await gql(graphql('mutation RotateSecret($id: ID!) { rotateWebhookSecret(id: $id) }'), { id })).rotateWebhookSecret,
      enable: async (id: string, enabled: boolean) => void (await gql(graphql('mutation ToggleWebhook($id: ID!, $enabled: Boolean) { updateWebhook(id: $id, enabled: $enabled) { id } }'), { id, enabled })),
      remove: async (id: string) => void (await gql(graphql('mutation DeleteWebhook($id: ID!) { deleteWebhook(id: $id) }'), { id })),
      create: async (v: NewWebhook) =>
        (await gql(
          graphql(
            'mutation CreateWebhook($url: String!, $events: [String!]!, $description: String) { createWebhook(url: $url, events: $events, description: $description) { secret webhook { ...WebhookFields } } }',
            [WebhookFields],
          ),
          v,
        )).createWebhook,
    };
  }
  const slug = owner.slug;
  return {
    list: async () => (await gql(graphql('query OrgWebhooks($slug: String!) { organization(slug: $slug) { webhooks { edges { node { ...WebhookFields } } } } }', [WebhookFields]), { slug })).organization.webhooks.edges.map((e) => e.node),
    deliveries: async (id: string) =>
      (await gql(graphql('query OrgDeliveries($slug: String!, $id: ID!) { organization(slug: $slug) { webhook(id: $id) { deliveries(first: 25) { ...DeliveryFields } } } }', [DeliveryFields]), { slug, id })).organization.webhook.deliveries,
    retry: async (id: string, deliveryId: string) =>
      void (await gql(graphql('mutation RetryOrgDelivery($slug: String!, $id: ID!, $deliveryId: ID!) { retryOrganizationWebhookDelivery(slug: $slug, id: $id, deliveryId: $deliveryId) }'), { slug, id, deliveryId })),
    test: async (id: string) => void (await gql(graphql('mutation OrgWebhookTest($slug: String!, $id: ID!) { sendOrganizationWebhookTest(slug: $slug, id: $id) }'), { slug, id })),
    rotate: async (id: string) => (await gql(graphql('mutation RotateOrgSecret($slug: String!, $id: ID!) { rotateOrganizationWebhookSecret(slug: $slug, id: $id) }'), { slug, id })).rotateOrganizationWebhookSecret,
    enable: async (id: string, enabled: boolean) =>
      void (await gql(graphql('mutation ToggleOrgWebhook($slug: String!, $id: ID!, $enabled: Boolean) { updateOrganizationWebhook(slug: $slug, id: $id, enabled: $enabled) { id } }'), { slug, id, enabled })),
    remove: async (id: string) => void (await gql(graphql('mutation DeleteOrgWebhook($slug: String!, $id: ID!) { deleteOrganizationWebhook(slug: $slug, id: $id) }'), { slug, id })),
    create: async (v: NewWebhook) =>
      (await gql(
        graphql(
          'mutation CreateOrgWebhook($slug: String!, $url: String!, $events: [String!]!, $description: String) { createOrganizationWebhook(slug: $slug, url: $url, events: $events, description: $description) { secret webhook { ...WebhookFields } } }',
          [WebhookFields],
        ),
        { slug, ...v },
      )).createOrganizationWebhook,
  };
}

export async function webhooksView(owner: Owner): Promise<Node> {
  const api = webhookApi(owner);
  const status = statusLine();
  const list = h('ul', { class: 'list webhooks' });
  const revealed = h('div', { class: 'revealed', hidden: true });

  const fail = (err: unknown) => {
    if (err instanceof ReauthCancelled) status.show('info', err.message);
    else status.show('error', explain(err));
  };

  const load = async () => {
    const hooks = await api.list();
    list.replaceChildren(...(hooks.length ? hooks.map(row) : [h('li', { class: 'muted' }, 'No webhook yet.')]));
  };

  /** The secret, shown once with a copy button; gone when the page is left. */
  const show = (what: string, secret: string) => {
    const value = h('input', { type: 'text', readonly: true, value: secret, class: 'secret', 'aria-label': 'Signing secret' });
    const copy = h('button', { type: 'button', class: 'secondary small' }, 'Copy');
    copy.addEventListener('click', () => {
      value.select();
      void navigator.clipboard?.writeText(secret).then(
        () => status.show('ok', 'Copied.'),
        () => status.show('info', 'Select the secret and copy it.'),
      );
    });
    revealed.replaceChildren(
      h('p', { role: 'status' }, `${what} Copy the signing secret now: it is not shown again.`),
      h('div', { class: 'copy-row' }, value, copy),
      h('p', { class: 'muted' }, 'Verify each delivery’s ', chip('webhook-signature'), ' with it (Standard Webhooks; libraries exist for every language).'),
    );
    revealed.hidden = false;
    revealed.scrollIntoView({ block: 'nearest' });
  };

  const deliveriesTable = (w: Webhook, items: Delivery[], reload: () => Promise<void>): HTMLElement => {
    if (items.length === 0) return h('p', { class: 'muted' }, 'No delivery yet.');
    const COLUMNS = ['Event', 'Attempt', 'Result', 'Time', 'When', 'Next attempt'];
    /** A cell that names its column: a narrow screen shows each row as a card of labelled lines. */
    const cell = (i: number, ...content: Child[]) => h('td', { 'data-label': COLUMNS[i] }, ...content);
    return h(
      'table',
      { class: 'table deliveries' },
      h('thead', {}, h('tr', {}, COLUMNS.map((c) => h('th', { scope: 'col' }, c)), h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, 'Action')))),
      h(
        'tbody',
        {},
        items.map((d) => {
          const ok = d.error === null;
          // Only a failed delivery is worth sending again: a delivered one was received.
          const retry = ok ? null : h('button', { type: 'button', class: 'secondary small', 'aria-label': `Retry ${d.type} attempt ${d.attempt}` }, 'Retry');
          retry?.addEventListener('click', () => {
            void busy(retry, async () => {
              try {
                await api.retry(w.id, d.id);
                status.show('ok', 'Sent again; the result appears in the log.');
                setTimeout(() => void reload(), 1000);
              } catch (err) {
                fail(err);
              }
            });
          });
          return h(
            'tr',
            { 'data-delivery-id': d.id, class: ok ? 'ok' : 'failed' },
            cell(0, h('code', { class: 'event' }, d.type)),
            cell(1, String(d.attempt)),
            cell(2, h('span', { class: 'result' }, ok ? `✓ ${d.statusCode}` : `✗ ${d.error}`)),
            cell(3, `${d.durationMs} ms`),
            cell(4, timeEl(d.at)),
            cell(5, d.nextAttemptAt ? timeEl(d.nextAttemptAt) : '—'),
            h('td', { class: retry ? 'action' : 'action empty' }, retry),
          );
        }),
      ),
    );
  };

  const row = (w: Webhook): HTMLElement => {
    const log = h('div', { class: 'delivery-log', hidden: true });
    const loadLog = async () => {
      log.replaceChildren(deliveriesTable(w, await api.deliveries(w.id), loadLog));
    };
    const action = (label: string, aria: string, work: () => Promise<void>) => {
      const b = h('button', { type: 'button', class: 'secondary small', 'aria-label': `${aria} ${w.url}` }, label);
      b.addEventListener('click', () => {
        void busy(li, async () => {
          try {
            await work();
          } catch (err) {
            fail(err);
          }
        });
      });
      return b;
    };
    const showLog = action('Deliveries', 'Show deliveries of', async () => {
      log.hidden = !log.hidden;
      if (!log.hidden) await loadLog();
    });
    const test = action('Send test', 'Send a test event to', async () => {
      await api.test(w.id);
      status.show('ok', 'A test event is on its way.');
      log.hidden = false;
      setTimeout(() => void loadLog(), 1000);
    });
    const rotate = action('Rotate secret', 'Rotate the secret of', async () => {
      const secret = await withRecentAuth(() => api.rotate(w.id), 'A new signing secret for a webhook needs a recent sign-in.');
      show('New secret. For 24 hours deliveries are signed with the old one too.', secret);
    });
    const toggle = action(w.enabled ? 'Disable' : 'Enable', w.enabled ? 'Disable' : 'Enable', async () => {
      const change = () => api.enable(w.id, !w.enabled);
      await (w.enabled ? change() : withRecentAuth(change, 'Turning a webhook back on needs a recent sign-in.'));
      status.show('ok', w.enabled ? 'Disabled: no event is sent to it.' : 'Enabled: waiting events go out now.');
      await load();
    });
    const remove = action('Delete', 'Delete', async () => {
      if (!confirm(`Delete the webhook ${w.url}? Its delivery log goes with it.`)) return;
      await api.remove(w.id);
      status.show('ok', 'Webhook deleted.');
      await load();
    });
    const state = w.enabled
      ? h('span', { class: 'badge ok' }, 'enabled')
      : h('span', { class: 'badge warn' }, w.disabledReason === 'failing' ? 'disabled: failing for five days' : 'disabled');
    const li = h(
      'li',
      { class: 'tunnel webhook', 'data-webhook-id': w.id },
      h('div', { class: 'tunnel-head' }, h('h3', {}, chip(w.url)), state),
      h(
        'dl',
        { class: 'facts' },
        ...(w.description ? [h('dt', {}, 'Description'), h('dd', {}, w.description)] : []),
        h('dt', {}, 'Events'),
        h('dd', { class: 'chips' }, w.events.map((e) => chip(e))),
        h('dt', {}, 'Created'),
        h('dd', {}, timeEl(w.createdAt)),
      ),
      h('div', { class: 'actions' }, showLog, test, rotate, toggle, remove),
      log,
    );
    return li;
  };

  const form = h(
    'form',
    { novalidate: true, class: 'create-webhook' },
    field('Endpoint URL', { name: 'url', type: 'url', required: true, autocomplete: 'off', placeholder: 'https://example.com/hooks/tunnels' }, 'https, on a public address.'),
    checkGroup('Events', 'event', eventsOf(owner), { field: 'events' }),
    field('Description', { name: 'description', type: 'text', autocomplete: 'off' }, 'Optional: what receives it.'),
    h('button', { type: 'submit' }, 'Add webhook'),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const v = formValues(form);
    const chosen = [...form.querySelectorAll<HTMLInputElement>('input[name="event"]:checked')].map((i) => i.value);
    void busy(form, async () => {
      try {
        const created = await withRecentAuth(() => api.create({ url: (v.url ?? '').trim(), events: chosen, description: v.description ?? '' }), 'Adding a webhook needs a recent sign-in.');
        formDone(form, status);
        show('Webhook added.', created.secret);
        form.reset();
        await load();
      } catch (err) {
        showFormError(form, status, err);
      }
    });
  });

  await load();
  return h(
    'div',
    {},
    ...pageHeading(owner, 'Webhooks'),
    h(
      'p',
      { class: 'muted' },
      owner.kind === 'account'
        ? 'Your endpoints receive signed events when tunnels, their cards or your account’s security change.'
        : `The endpoints of ${owner.name} receive signed events when its tunnels or their cards change, and when members join, leave or change role.`,
      ' Failed deliveries are retried for about a day; an endpoint failing for five days is disabled.',
    ),
    section('New webhook', 'new-webhook', form, revealed),
    status,
    section(owner.kind === 'account' ? 'Your webhooks' : `Webhooks of ${owner.name}`, 'webhook-list', list),
  );
}
