// Webhook paths of API.md section 15: the same operations as GraphQL.
import { graphql, type ResultOf } from '../../documents/graphql.js';
import { route, signedIn, type RestRoute } from '../route.js';

const WebhookFields = graphql(`
  fragment WebhookFields on Webhook { id url events description enabled disabledReason createdAt }
`);

const DeliveryFields = graphql(`
  fragment DeliveryFields on WebhookDelivery { id deliveryId eventId type attempt statusCode error durationMs at nextAttemptAt }
`);

const webhookJson = (w: ResultOf<typeof WebhookFields>) => ({
  id: w.id,
  url: w.url,
  events: w.events,
  description: w.description,
  enabled: w.enabled,
  disabled_reason: w.disabledReason,
  created_at: w.createdAt,
});

const deliveryJson = (d: ResultOf<typeof DeliveryFields>) => ({
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
    document: graphql('query { me { webhooks { ...WebhookFields } } }', [WebhookFields]),
    status: 200,
    respond: (d) => ({ webhooks: signedIn(d.me).webhooks.map(webhookJson) }),
  }),
  route({
    method: 'PATCH',
    url: '/api/webhooks/:id',
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
    document: graphql('mutation ($id: ID!) { deleteWebhook(id: $id) }'),
    params: { id: 'id' },
    status: 204,
  }),
  route({
    method: 'POST',
    url: '/api/webhooks/:id/rotate-secret',
    document: graphql('mutation ($id: ID!) { rotateWebhookSecret(id: $id) }'),
    params: { id: 'id' },
    status: 200,
    respond: (d) => ({ secret: d.rotateWebhookSecret }),
  }),
  route({
    method: 'POST',
    url: '/api/webhooks/:id/test',
    document: graphql('mutation ($id: ID!) { sendWebhookTest(id: $id) }'),
    params: { id: 'id' },
    status: 202,
    respond: (d) => ({ event_id: d.sendWebhookTest }),
  }),
  route({
    method: 'GET',
    url: '/api/webhooks/:id/deliveries',
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
    document: graphql('mutation ($id: ID!, $deliveryId: ID!) { retryWebhookDelivery(id: $id, deliveryId: $deliveryId) }'),
    params: { id: 'id', deliveryId: 'deliveryId' },
    status: 202,
  }),
];
