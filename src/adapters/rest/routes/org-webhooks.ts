// An organization's webhook endpoints (API.md section 18): the section 15 paths under
// /api/orgs/<slug>/webhooks, for its admins and owners; the same operations as GraphQL.
import { graphql } from '../../documents/graphql.js';
import { route, type RestRoute } from '../route.js';
import { CreatedWebhook, Webhook, WebhookDeliveryLog, WebhookList, WebhookSecret, WebhookTestSent } from '../schemas.js';
import { DeliveryFields, deliveryJson, WebhookFields, webhookJson } from './webhooks.js';

const NOT_MEMBER = 'Unknown organization, or the caller is not a member.';
const UNKNOWN = 'Unknown organization or endpoint.';
const ROLE = 'The role does not allow it.';

export const orgWebhookRoutes: RestRoute[] = [
  route({
    method: 'POST',
    url: '/api/orgs/:slug/webhooks',
    summary: "Create a webhook endpoint of the organization (admins and owners): its tunnels' events and org.member; its signing secret is shown once.",
    errors: {
      400: 'A rule is broken, or the address is refused (https and public addresses only).',
      403: 'The role does not allow it, or recent authentication is needed (REAUTH_REQUIRED).',
      404: NOT_MEMBER,
      409: 'Past 10 endpoints.',
    },
    response: CreatedWebhook,
    document: graphql(
      `mutation ($slug: String!, $url: String!, $events: [String!]!, $description: String) {
        createOrganizationWebhook(slug: $slug, url: $url, events: $events, description: $description) { secret webhook { ...WebhookFields } } }`,
      [WebhookFields],
    ),
    params: { slug: 'slug' },
    body: { url: 'url', events: 'events', description: 'description' },
    status: 201,
    respond: (d) => ({ ...webhookJson(d.createOrganizationWebhook.webhook), secret: d.createOrganizationWebhook.secret }),
  }),
  route({
    method: 'GET',
    url: '/api/orgs/:slug/webhooks',
    summary: "The organization's webhook endpoints (admins and owners).",
    operationId: 'listOrganizationWebhooks',
    errors: { 403: ROLE, 404: NOT_MEMBER },
    response: WebhookList,
    document: graphql('query ($slug: String!) { organization(slug: $slug) { webhooks(first: 10) { edges { node { ...WebhookFields } } } } }', [WebhookFields]),
    params: { slug: 'slug' },
    status: 200,
    respond: (d) => ({ webhooks: d.organization.webhooks.edges.map((e) => webhookJson(e.node)) }),
  }),
  route({
    method: 'GET',
    url: '/api/orgs/:slug/webhooks/:id',
    summary: 'One webhook endpoint of the organization (admins and owners).',
    operationId: 'getOrganizationWebhook',
    errors: { 403: ROLE, 404: UNKNOWN },
    response: Webhook,
    document: graphql('query ($slug: String!, $id: ID!) { organization(slug: $slug) { webhook(id: $id) { ...WebhookFields } } }', [WebhookFields]),
    params: { slug: 'slug', id: 'id' },
    status: 200,
    respond: (d) => webhookJson(d.organization.webhook),
  }),
  route({
    method: 'PATCH',
    url: '/api/orgs/:slug/webhooks/:id',
    summary: 'Change an endpoint of the organization (a new URL or events, or turning it back on, needs recent authentication).',
    errors: { 400: 'A rule is broken, or the address is refused.', 403: 'The role does not allow it, or recent authentication is needed (REAUTH_REQUIRED).', 404: UNKNOWN },
    response: Webhook,
    document: graphql(
      `mutation ($slug: String!, $id: ID!, $url: String, $events: [String!], $description: String, $enabled: Boolean) {
        updateOrganizationWebhook(slug: $slug, id: $id, url: $url, events: $events, description: $description, enabled: $enabled) { ...WebhookFields } }`,
      [WebhookFields],
    ),
    params: { slug: 'slug', id: 'id' },
    body: { url: 'url', events: 'events', description: 'description', enabled: 'enabled' },
    status: 200,
    respond: (d) => webhookJson(d.updateOrganizationWebhook),
  }),
  route({
    method: 'DELETE',
    url: '/api/orgs/:slug/webhooks/:id',
    summary: 'Delete an endpoint of the organization.',
    errors: { 403: ROLE, 404: UNKNOWN },
    document: graphql('mutation ($slug: String!, $id: ID!) { deleteOrganizationWebhook(slug: $slug, id: $id) }'),
    params: { slug: 'slug', id: 'id' },
    status: 204,
  }),
  route({
    method: 'POST',
    url: '/api/orgs/:slug/webhooks/:id/rotate-secret',
    summary: 'A new signing secret for an endpoint of the organization; for 24 hours deliveries carry signatures of both.',
    errors: { 403: 'The role does not allow it, or recent authentication is needed (REAUTH_REQUIRED).', 404: UNKNOWN },
    response: WebhookSecret,
    document: graphql('mutation ($slug: String!, $id: ID!) { rotateOrganizationWebhookSecret(slug: $slug, id: $id) }'),
    params: { slug: 'slug', id: 'id' },
    status: 200,
    respond: (d) => ({ secret: d.rotateOrganizationWebhookSecret }),
  }),
  route({
    method: 'POST',
    url: '/api/orgs/:slug/webhooks/:id/test',
    summary: 'Queue a webhook.test event for an endpoint of the organization.',
    errors: { 403: ROLE, 404: UNKNOWN, 429: 'Past 20 test events and retries in 15 minutes.' },
    response: WebhookTestSent,
    document: graphql('mutation ($slug: String!, $id: ID!) { sendOrganizationWebhookTest(slug: $slug, id: $id) }'),
    params: { slug: 'slug', id: 'id' },
    status: 202,
    respond: (d) => ({ event_id: d.sendOrganizationWebhookTest }),
  }),
  route({
    method: 'GET',
    url: '/api/orgs/:slug/webhooks/:id/deliveries',
    summary: "An endpoint's delivery log, one entry per attempt, newest first.",
    operationId: 'listOrganizationWebhookDeliveries',
    errors: { 400: 'A bad limit (1..100).', 403: ROLE, 404: UNKNOWN },
    response: WebhookDeliveryLog,
    document: graphql(
      `query ($slug: String!, $id: ID!, $limit: Int) { organization(slug: $slug) { webhook(id: $id) { deliveries(first: $limit) { ...DeliveryFields } } } }`,
      [DeliveryFields],
    ),
    params: { slug: 'slug', id: 'id' },
    query: { limit: 'limit' },
    status: 200,
    respond: (d) => ({ deliveries: d.organization.webhook.deliveries.map(deliveryJson) }),
  }),
  route({
    method: 'POST',
    url: '/api/orgs/:slug/webhooks/:id/deliveries/:deliveryId/retry',
    summary: 'Send a delivery to an endpoint of the organization again now.',
    errors: { 403: ROLE, 404: 'Unknown organization, endpoint or delivery.', 429: 'Past 20 test events and retries in 15 minutes.' },
    document: graphql('mutation ($slug: String!, $id: ID!, $deliveryId: ID!) { retryOrganizationWebhookDelivery(slug: $slug, id: $id, deliveryId: $deliveryId) }'),
    params: { slug: 'slug', id: 'id', deliveryId: 'deliveryId' },
    status: 202,
  }),
];
