// Webhook paths of API.md section 15: the same operations as GraphQL.
import { graphql, type ResultOf } from '../../documents/graphql.js';
import { route, signedIn, type RestRoute } from '../route.js';
import { CreatedWebhook, Webhook, WebhookDeliveryLog, WebhookList, WebhookSecret, WebhookTestSent } from '../schemas.js';

export const WebhookFields = graphql(`
  fragment WebhookFields on Webhook { id url events description enabled disabledReason createdAt }
`);

export const DeliveryFields = graphql(`
  fragment DeliveryFields on WebhookDelivery { id deliveryId eventId type attempt statusCode error durationMs at nextAttemptAt }
`);

export const webhookJson = (w: ResultOf<typeof WebhookFields>) => ({
  id: w.id,
  url: w.url,
  events: w.events,
  description: w.description,
  enabled: w.enabled,
  disabled_reason: w.disabledReason,
  created_at: w.createdAt,
});

export const deliveryJson = (d: ResultOf<typeof DeliveryFields>) => ({
  id: d.id,
  delivery_id: d.deliveryId,
  event_id: d.eventId,
  type: d.type,
  attempt: d.attempt,
  status_code: d.statusCode,
  error: d.error,
  duration_ms: d.durationMs,
  at: d.at,
  next_attempt_at: d.nextAttemptAt,
});

export const webhookRoutes: RestRoute[] = [
  route({
    method: 'POST',
    url: '/api/webhooks',
    summary: 'Create a webhook endpoint; its signing secret is shown once.',
    errors: { 400: 'A rule is broken, or the address is refused (https and public addresses only).', 403: 'Recent authentication is needed (REAUTH_REQUIRED).', 409: 'Past 10 endpoints.' },
    response: CreatedWebhook,
    document: graphql(
      `mutation ($url: String!, $events: [String!]!, $description: String) {
        createWebhook(url: $url, events: $events, description: $description) { secret webhook { ...WebhookFields } } }`,
      [WebhookFields],
    ),
    body: { url: 'url', events: 'events', description: 'description' },
    status: 201,
    respond: (d) => ({ ...webhookJson(d.createWebhook.webhook), secret: d.createWebhook.secret }),
  }),
  route({
    method: 'GET',
    url: '/api/webhooks',
    summary: "The account's webhook endpoints.",
    operationId: 'listWebhooks',
    response: WebhookList,
    document: graphql('query { me { webhooks { ...WebhookFields } } }', [WebhookFields]),
    status: 200,
    respond: (d) => ({ webhooks: signedIn(d.me).webhooks.map(webhookJson) }),
  }),
  route({
    method: 'PATCH',
    url: '/api/webhooks/:id',
    summary: 'Change an endpoint (a new URL or events, or turning it back on, needs recent authentication).',
    errors: { 400: 'A rule is broken, or the address is refused.', 403: 'Recent authentication is needed (REAUTH_REQUIRED).', 404: 'Unknown endpoint.' },
    response: Webhook,
    document: graphql(
      `mutation ($id: ID!, $url: String, $events: [String!], $description: String, $enabled: Boolean) {
        updateWebhook(id: $id, url: $url, events: $events, description: $description, enabled: $enabled) { ...WebhookFields } }`,
      [WebhookFields],
    ),
    params: { id: 'id' },
    body: { url: 'url', events: 'events', description: 'description', enabled: 'enabled' },
    status: 200,
    respond: (d) => webhookJson(d.updateWebhook),
  }),
  route({
    method: 'DELETE',
    url: '/api/webhooks/:id',
    summary: 'Delete an endpoint.',
    errors: { 404: 'Unknown endpoint.' },
    document: graphql('mutation ($id: ID!) { deleteWebhook(id: $id) }'),
    params: { id: 'id' },
    status: 204,
  }),
  route({
    method: 'POST',
    url: '/api/webhooks/:id/rotate-secret',
    summary: 'A new signing secret; for 24 hours deliveries carry signatures of both.',
    errors: { 403: 'Recent authentication is needed (REAUTH_REQUIRED).', 404: 'Unknown endpoint.' },
    response: WebhookSecret,
    document: graphql('mutation ($id: ID!) { rotateWebhookSecret(id: $id) }'),
    params: { id: 'id' },
    status: 200,
    respond: (d) => ({ secret: d.rotateWebhookSecret }),
  }),
  route({
    method: 'POST',
    url: '/api/webhooks/:id/test',
    summary: 'Queue a webhook.test event for this endpoint.',
    errors: { 404: 'Unknown endpoint.', 429: 'Past 20 test events and retries in 15 minutes.' },
    response: WebhookTestSent,
    document: graphql('mutation ($id: ID!) { sendWebhookTest(id: $id) }'),
    params: { id: 'id' },
    status: 202,
    respond: (d) => ({ event_id: d.sendWebhookTest }),
  }),
  route({
    method: 'GET',
    url: '/api/webhooks/:id/deliveries',
    summary: "The endpoint's delivery log, one entry per attempt, newest first.",
    operationId: 'listWebhookDeliveries',
    errors: { 400: 'A bad limit (1..100).', 404: 'Unknown endpoint.' },
    response: WebhookDeliveryLog,
    document: graphql(
      `query ($id: ID!, $limit: Int) { webhookDeliveries(webhookId: $id, first: $limit) { ...DeliveryFields } }`,
      [DeliveryFields],
    ),
    params: { id: 'id' },
    query: { limit: 'limit' },
    status: 200,
    respond: (d) => ({ deliveries: d.webhookDeliveries.map(deliveryJson) }),
  }),
  route({
    method: 'POST',
    url: '/api/webhooks/:id/deliveries/:deliveryId/retry',
    summary: 'Send a delivery again now.',
    errors: { 404: 'Unknown endpoint or delivery.', 429: 'Past 20 test events and retries in 15 minutes.' },
    document: graphql('mutation ($id: ID!, $deliveryId: ID!) { retryWebhookDelivery(id: $id, deliveryId: $deliveryId) }'),
    params: { id: 'id', deliveryId: 'deliveryId' },
    status: 202,
  }),
];
