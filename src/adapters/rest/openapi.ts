// The OpenAPI 3.1 document of the REST paths (API.md section 16), printed from the route table the
// server mounts, so it cannot drift from what the server does:
// - parameters and request bodies from each operation's variable types (what variables.ts checks a
//   request against), with the GraphQL arguments' descriptions;
// - answers from each route's response schema (which its `respond` is typed to produce);
// - who may call from the route (public or not) and, for service tokens, from the same scope
//   reach the server enforces (token-scopes.ts);
// - error statuses from the route's kind plus its own list, all problem+json.
// The few paths that are plain HTTP (provider redirects, the edge's internal call, health and
// metrics) are described here by hand; a test checks that every path the server registers on
// the API host is in the document.
import { Kind, type GraphQLSchema } from 'graphql';
import { z } from 'zod';
import { INCIDENT_IMPACTS, INCIDENT_STATUSES } from '../../domain/status/notices.js';
import { COMPONENTS } from '../../domain/status/rollup.js';
import { firstUnreachable } from '../graphql/token-scopes.js';
import { operationOf, routeVariables, type RouteVariable } from './variables.js';
import type { ErrorStatus, RestRoute } from './route.js';
import { NAMED_SCHEMAS } from './schemas.js';

/** A JSON value of the document (the document is plain data). */
type Json = Record<string, unknown>;

export interface OpenApiOptions {
  /** The API host's origin (BASE_URL). */
  serverUrl: string;
  /** ZONE: tunnel hosts are `<subdomain>--<slug>.ZONE`; the status page is on ZONE itself. */
  zone: string;
  serviceName: string;
  version: string;
}

const TOKEN_SCOPES = ['account:read', 'tunnels:read', 'tunnels:write'] as const;

const TAGS: { name: string; prefixes: string[]; description: string }[] = [
  { name: 'Sign-in providers', prefixes: ['/auth/oauth/', '/api/account/sso/'], description: 'SSO with Google and GitHub, and safe linking to a password account.' },
  { name: 'Two-step sign-in', prefixes: ['/auth/mfa/', '/api/account/mfa/'], description: 'TOTP and recovery codes, and the re-authentication they allow.' },
  { name: 'Passkeys', prefixes: ['/auth/passkey/', '/api/account/passkeys'], description: 'WebAuthn passkeys.' },
  { name: 'Activity', prefixes: ['/api/account/activity'], description: 'The security activity of the account, newest first.' },
  { name: 'Sessions', prefixes: ['/api/sessions', '/auth/logout'], description: 'Signed-in sessions.' },
  { name: 'Service tokens', prefixes: ['/api/tokens', '/api/device/'], description: 'Service tokens for the CLI and CI, and the approval side of the device grant.' },
  { name: 'Tunnels', prefixes: ['/api/tunnels', '/internal/tunnels/'], description: 'Tunnels, their cards and their access rules.' },
  { name: 'OAuth for tunnels', prefixes: ['/api/oauth/', '/internal/oauth/'], description: 'Consent and authorized applications for OAuth-protected tunnels.' },
  { name: 'Webhooks', prefixes: ['/api/webhooks'], description: 'Signed event delivery, Standard Webhooks 1.0.' },
  { name: 'Account', prefixes: ['/auth/', '/api/account'], description: 'Sign-up, sign-in, verification, password and email, slug, re-authentication, deletion.' },
  { name: 'Server Cards', prefixes: ['/.well-known/'], description: 'The public discovery document of a discoverable tunnel, on its host and custom domain.' },
  { name: 'Status', prefixes: ['/status'], description: 'The public roll-up on ZONE: JSON or HTML, its history, badges, incidents and subscriptions.' },
  { name: 'Operations', prefixes: ['/'], description: 'Health, readiness, metrics and this document.' },
];

const tagOf = (url: string): string => TAGS.find((t) => t.prefixes.some((p) => url.startsWith(p)))?.name ?? 'Operations';

/** `/api/tunnels/:id` → `/api/tunnels/{id}`. */
export const openApiPath = (url: string): string => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

const PROBLEM = { $ref: '#/components/schemas/Problem' };
const problem = (description: string, headers?: Json): Json => ({
  description,
  ...(headers ? { headers } : {}),
  content: { 'application/problem+json': { schema: PROBLEM } },
});
const RETRY_AFTER = { 'Retry-After': { description: 'Seconds until a new attempt may succeed.', schema: { type: 'integer' } } };
const WWW_AUTHENTICATE = {
  'WWW-Authenticate': {
    description:
      'On a 401 for the credential (RFC 6750): `Bearer error="invalid_token"` when a bearer token was presented and is unknown, expired or revoked; `Bearer` when no credential came. Not sent when the 401 is about a password or code in the body.',
    schema: { type: 'string' },
  },
};
const SERVER_FAULT = problem('A fault of the server, or a dependency it needs is unavailable (503, UNAVAILABLE).');

/** A variable's JSON Schema, from its GraphQL type (variables.ts). */
function variableSchema(variable: RouteVariable): Json {
  const base: Json = { ...variable.jsonSchema };
  // An optional variable takes null too ("clear it": custom_domain, description).
  if (!variable.required && typeof base.type === 'string') base.type = [base.type, 'null'];
  return base;
}

/** Variable → description of the GraphQL argument it is passed to (for the body's fields). */
function argumentDocs(schema: GraphQLSchema, route: RestRoute): Map<string, string> {
  const operation = operationOf(route);
  const root = operation.operation === 'mutation' ? schema.getMutationType() : schema.getQueryType();
  const docs = new Map<string, string>();
  for (const selection of operation.selectionSet.selections) {
    if (selection.kind !== Kind.FIELD || !root) continue;
    const field = root.getFields()[selection.name.value];
    for (const arg of selection.arguments ?? []) {
      const description = field?.args.find((a) => a.name === arg.name.value)?.description;
      if (arg.value.kind === Kind.VARIABLE && description) docs.set(arg.value.name.value, description);
    }
  }
  return docs;
}

/** The operation id: the route's own, or the GraphQL root field it runs. */
function operationIdOf(route: RestRoute): string {
  if (route.operationId) return route.operationId;
  const first = operationOf(route).selectionSet.selections[0];
  if (first?.kind !== Kind.FIELD) throw new Error(`REST ${route.method} ${route.url}: no root field to name the operation`);
  return first.name.value;
}

function securityOf(schema: GraphQLSchema, route: RestRoute): Json[] {
  if (route.public) return [];
  const scopes = TOKEN_SCOPES.filter((scope) => firstUnreachable(schema, route.document, [scope]) === null);
  return [{ cookie: [] }, { sessionBearer: [] }, ...scopes.map((scope) => ({ serviceToken: [scope] }))];
}

/** What any request may meet, whatever its path: HTTP framing refused before routing. */
const TRANSPORT_400 = 'A malformed request: an invalid or repeated Host header.';
const LONG_PARAM_414 = 'A path parameter over 100 characters.';

function errorsOf(route: RestRoute): Map<number, string> {
  const errors = new Map<number, string[]>();
  const add = (status: number, text: string) => errors.set(status, [...(errors.get(status) ?? []), text]);
  for (const [status, text] of Object.entries(route.errors ?? {}) as [string, string][]) add(Number(status) as ErrorStatus, text);
  // Every write parses a JSON body when one is sent, whether or not the path reads fields from it.
  const write = route.method !== 'GET';
  if (write || route.query) add(400, 'The body is not a JSON object, or a field or parameter is missing or of the wrong type.');
  add(400, TRANSPORT_400);
  if (!route.public) {
    add(401, 'Not signed in, or the session or token is no longer valid.');
    add(403, 'A service token whose scopes do not reach this path (FORBIDDEN).');
  }
  if (write) {
    add(403, 'A cookie-authenticated (or anonymous) write from an Origin not in ALLOWED_ORIGINS.');
    add(413, 'The body is over 64 KiB.');
    add(415, 'The body is not application/json.');
  }
  if (route.params) add(414, LONG_PARAM_414);
  return new Map([...errors].sort(([a], [b]) => a - b).map(([status, texts]) => [status, [...new Set(texts)].join(' Or: ')]));
}

function operationOfRoute(schema: GraphQLSchema, route: RestRoute, responseRef: (route: RestRoute) => Json | null): Json {
  const variables = routeVariables(schema, route);
  const docs = argumentDocs(schema, route);
  const parameters: Json[] = [];
  for (const param of Object.keys(route.params ?? {})) parameters.push({ name: param, in: 'path', required: true, schema: { type: 'string' } });
  for (const [name, variable] of Object.entries(route.query ?? {})) {
    const integer = variables.get(variable)?.jsonSchema.type === 'integer';
    const description = docs.get(variable);
    parameters.push({ name, in: 'query', required: false, ...(description ? { description } : {}), schema: integer ? { type: 'integer' } : { type: 'string' } });
  }
  const op: Json = { operationId: operationIdOf(route), summary: route.summary, tags: [tagOf(route.url)], security: securityOf(schema, route) };
  if (parameters.length > 0) op.parameters = parameters;
  if (route.body) {
    const properties: Json = {};
    const required: string[] = [];
    for (const [field, variable] of Object.entries(route.body)) {
      const definition = variables.get(variable);
      if (!definition) throw new Error(`REST ${route.method} ${route.url}: body field ${field} names no variable`);
      const description = docs.get(variable);
      properties[field] = { ...variableSchema(definition), ...(description ? { description } : {}) };
      if (definition.required && route.bodyFallback?.[field] === undefined) required.push(field);
    }
    op.requestBody = {
      required: true,
      content: { 'application/json': { schema: { type: 'object', properties, ...(required.length > 0 ? { required } : {}) } } },
    };
  }
  const responses: Json = {};
  const ref = responseRef(route);
  const success: Json = { description: route.status === 204 ? 'Done; no body.' : route.status === 202 ? 'Accepted.' : 'OK.' };
  if (ref) success.content = { 'application/json': { schema: ref } };
  if (route.setsCookie) {
    success.headers = {
      'Set-Cookie': {
        description: 'The `session` cookie (HttpOnly, SameSite=Lax, Path=/, Secure under https) when a session starts.',
        schema: { type: 'string' },
      },
    };
  }
  responses[String(route.status)] = success;
  for (const [status, text] of errorsOf(route)) {
    responses[String(status)] = problem(text, status === 429 ? RETRY_AFTER : status === 401 && !route.public ? WWW_AUTHENTICATE : undefined);
  }
  responses['5XX'] = SERVER_FAULT;
  op.responses = responses;
  return op;
}

/** The card paths of a tunnel host and /status on ZONE (API.md section 4): raw handlers on their
 *  own hosts, hence a server of their own per path. */
function otherHostPaths(zone: string): Record<string, Json> {
  const tunnelHost = [{ url: 'https://{host}', variables: { host: { default: `tools--you.${zone}`, description: 'A tunnel host (`<subdomain>--<slug>.ZONE`) or its custom domain.' } } }];
  const card = (operationId: string, summary: string): Json => ({
    servers: tunnelHost,
    get: {
      operationId,
      summary,
      tags: ['Server Cards'],
      security: [],
      parameters: [{ name: 'If-None-Match', in: 'header', required: false, schema: { type: 'string' } }],
      responses: {
        '200': {
          description: 'The card of a discoverable tunnel, with a strong ETag and public caching.',
          headers: { ETag: { schema: { type: 'string' } } },
          content: { 'application/json': { schema: { type: 'object', required: ['name', 'remotes'], properties: { name: { type: 'string' }, title: { type: 'string' }, remotes: { type: 'array', items: { type: 'object' } } } } } },
        },
        '304': { description: 'Not modified.' },
        '404': problem('No discoverable tunnel on this host.'),
        '502': problem('The card could not be built.'),
      },
    },
  });
  return {
    '/.well-known/mcp/server-card.json': card('getServerCard', "The tunnel's MCP Server Card."),
    '/.well-known/mcp-server-card.json': card('getServerCardAlias', 'The same card, at its second path.'),
    '/api/v2/summary.json': {
      servers: [{ url: `https://${zone}` }],
      get: {
        operationId: 'getStatuspageSummary',
        summary: "Statuspage's public summary format: page, status indicator, components, unresolved incidents, scheduled maintenance.",
        tags: ['Status'],
        security: [],
        externalDocs: { url: 'https://metastatuspage.com/api/v2', description: "Statuspage's public API" },
        responses: {
          '200': {
            description: 'The summary.',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['page', 'status', 'components', 'incidents', 'scheduled_maintenances'],
                  properties: {
                    page: { type: 'object', required: ['name', 'url', 'updated_at'], properties: { name: { type: 'string' }, url: { type: 'string' }, updated_at: { type: 'string', format: 'date-time' } } },
                    status: { type: 'object', required: ['indicator', 'description'], properties: { indicator: { enum: ['none', 'minor', 'major', 'critical'] }, description: { type: 'string' } } },
                    components: {
                      type: 'array',
                      items: {
                        type: 'object',
                        required: ['id', 'name', 'status', 'updated_at'],
                        properties: {
                          id: { type: 'string' },
                          name: { type: 'string' },
                          status: { enum: ['operational', 'degraded_performance', 'partial_outage', 'major_outage', 'under_maintenance'] },
                          updated_at: { type: 'string', format: 'date-time' },
                        },
                      },
                    },
                    incidents: { type: 'array', items: { type: 'object' } },
                    scheduled_maintenances: { type: 'array', items: { type: 'object' } },
                  },
                },
              },
            },
          },
        },
      },
    },
    '/status/subscribe': {
      servers: [{ url: `https://${zone}` }],
      post: {
        operationId: 'subscribeToStatus',
        summary: 'Ask for incident and maintenance emails: a confirmation link is sent (double opt-in). The same answer whoever is subscribed.',
        tags: ['Status'],
        security: [],
        requestBody: {
          required: true,
          content: {
            'application/json': { schema: { type: 'object', required: ['email'], properties: { email: { type: 'string', format: 'email', maxLength: 254 } } } },
            'application/x-www-form-urlencoded': {
              schema: { type: 'object', required: ['email'], properties: { email: { type: 'string' } } },
              // The status page's own form (Origin: the zone origin), answered with a page.
            },
          },
        },
        responses: {
          '200': { description: "The status page's form: a page saying a link is on its way.", content: { 'text/html': { schema: { type: 'string' } } } },
          '202': { description: 'Accepted (JSON): a confirmation link goes out if the address can be subscribed.' },
          '400': problem('Not an email address, or not JSON.'),
          '403': problem('A JSON request from an Origin not in ALLOWED_ORIGINS, or a form not from the zone origin.'),
          '413': problem('The body is over 8 KiB.'),
          '415': problem('Neither application/json nor the form encoding.'),
          '429': problem('Too many requests from this network.', RETRY_AFTER),
          '5XX': SERVER_FAULT,
        },
      },
    },
    '/status/subscribe/confirm': {
      servers: [{ url: `https://${zone}` }],
      get: {
        operationId: 'showStatusSubscriptionConfirm',
        summary: 'The double opt-in link (24 hours, once) in a browser: a page with a Confirm button (a GET changes nothing: mail scanners open links).',
        tags: ['Status'],
        security: [],
        parameters: [{ name: 'token', in: 'query', required: true, schema: { type: 'string' } }],
        responses: {
          '200': { description: 'The page, its form carrying the token.', content: { 'text/html': { schema: { type: 'string' } } } },
          '400': { description: 'Not a link token (a page).', content: { 'text/html': { schema: { type: 'string' } } } },
        },
      },
      post: {
        operationId: 'confirmStatusSubscription',
        summary: "The page's Confirm button: confirms the subscription its token names. Origin the zone origin, or none.",
        tags: ['Status'],
        security: [],
        parameters: [{ name: 'token', in: 'query', required: false, description: 'When the body carries none.', schema: { type: 'string' } }],
        requestBody: {
          required: false,
          content: { 'application/x-www-form-urlencoded': { schema: { type: 'object', properties: { token: { type: 'string' } } } } },
        },
        responses: {
          '200': { description: 'Subscribed (a page).', content: { 'text/html': { schema: { type: 'string' } } } },
          '400': { description: 'Unknown, used or expired link (a page).', content: { 'text/html': { schema: { type: 'string' } } } },
          '403': problem('An Origin other than the zone origin (a cross-site form).'),
          '413': problem('The body is over 8 KiB.'),
        },
      },
    },
    '/status/unsubscribe': {
      servers: [{ url: `https://${zone}` }],
      get: {
        operationId: 'showStatusUnsubscribe',
        summary: 'The List-Unsubscribe link in a browser: a page with an Unsubscribe button (a GET changes nothing).',
        tags: ['Status'],
        security: [],
        parameters: [{ name: 'token', in: 'query', required: true, schema: { type: 'string' } }],
        responses: { '200': { description: 'The page.', content: { 'text/html': { schema: { type: 'string' } } } } },
      },
      post: {
        operationId: 'unsubscribeFromStatus',
        summary: 'One-click unsubscribe (RFC 8058): any Origin, any body (List-Unsubscribe=One-Click), no sign-in.',
        tags: ['Status'],
        security: [],
        parameters: [{ name: 'token', in: 'query', required: true, schema: { type: 'string' } }],
        responses: { '200': { description: 'Unsubscribed, or nothing to unsubscribe (a page).', content: { 'text/html': { schema: { type: 'string' } } } } },
      },
    },
    '/status/feed.atom': {
      servers: [{ url: `https://${zone}` }],
      get: {
        operationId: 'getStatusFeed',
        summary: 'An Atom feed (RFC 4287): one entry per incident update and per maintenance, newest first, at most 50.',
        tags: ['Status'],
        security: [],
        responses: { '200': { description: 'The feed.', content: { 'application/atom+xml': { schema: { type: 'string' } } } }, '5XX': SERVER_FAULT },
      },
    },
    '/status/incidents': {
      servers: [{ url: `https://${zone}` }],
      get: {
        operationId: 'listIncidents',
        summary: 'Incidents of the last 90 days, newest first: JSON, or a page for a browser (`Accept: text/html`).',
        tags: ['Status'],
        security: [],
        responses: {
          '200': {
            description: 'The list.',
            content: {
              'application/json': { schema: { type: 'object', required: ['incidents'], properties: { incidents: { type: 'array', items: { $ref: '#/components/schemas/Incident' } } } } },
              'text/html': { schema: { type: 'string' } },
            },
          },
          '5XX': SERVER_FAULT,
        },
      },
    },
    '/status': {
      servers: [{ url: `https://${zone}` }],
      get: {
        operationId: 'getStatus',
        summary: 'The roll-up of broker, api and edge, as JSON or HTML by Accept.',
        tags: ['Status'],
        security: [],
        responses: {
          '200': { description: 'Every configured component is up (a broker without a health URL is listed as not configured, not as an outage).', content: { 'application/json': { schema: { type: 'object' } }, 'text/html': { schema: { type: 'string' } } } },
          '503': { description: 'A configured component is down.', content: { 'application/json': { schema: { type: 'object' } }, 'text/html': { schema: { type: 'string' } } } },
        },
      },
    },
  };
}

const INCIDENT_SCHEMA: Json = {
  type: 'object',
  required: ['id', 'title', 'impact', 'status', 'components', 'created_at', 'resolved_at', 'automatic', 'updates'],
  additionalProperties: false,
  properties: {
    id: { type: 'string' },
    title: { type: 'string' },
    impact: { enum: [...INCIDENT_IMPACTS] },
    status: { enum: [...INCIDENT_STATUSES] },
    components: { type: 'array', items: { type: 'string' } },
    created_at: { type: 'string', format: 'date-time' },
    resolved_at: { type: ['string', 'null'], format: 'date-time' },
    automatic: { type: 'boolean', description: 'Opened by the background refresh (a component down on 3 consecutive refreshes).' },
    updates: {
      type: 'array',
      description: 'Newest first.',
      items: {
        type: 'object',
        required: ['status', 'message', 'at'],
        additionalProperties: false,
        properties: { status: { type: 'string' }, message: { type: 'string' }, at: { type: 'string', format: 'date-time' } },
      },
    },
  },
};

const MAINTENANCE_SCHEMA: Json = {
  type: 'object',
  required: ['id', 'title', 'components', 'starts_at', 'ends_at', 'message', 'active'],
  additionalProperties: false,
  properties: {
    id: { type: 'string' },
    title: { type: 'string' },
    components: { type: 'array', items: { type: 'string' } },
    starts_at: { type: 'string', format: 'date-time' },
    ends_at: { type: 'string', format: 'date-time' },
    message: { type: 'string' },
    active: { type: 'boolean', description: 'Under way now.' },
  },
};

/** Operator-registered OAuth clients (API.md section 13a), with INTERNAL_API_TOKEN. */
function operatorClientPaths(): Record<string, Json> {
  const json = (schema: Json) => ({ 'application/json': { schema } });
  const client: Json = {
    type: 'object',
    required: ['client_id', 'client_name', 'redirect_uris', 'application_type', 'confidential', 'created_at'],
    properties: {
      client_id: { type: 'string' },
      client_name: { type: 'string' },
      redirect_uris: { type: 'array', items: { type: 'string' } },
      application_type: { enum: ['web', 'native'] },
      confidential: { type: 'boolean' },
      created_at: { type: 'string', format: 'date-time' },
      client_secret: { type: 'string', description: 'A confidential client\'s secret: in the answer to its registration only.' },
    },
  };
  const op = (operationId: string, summary: string, rest: Json): Json => ({ operationId, summary, tags: ['OAuth for tunnels'], security: [{ internalToken: [] }], ...rest });
  const denied = { '401': problem('INTERNAL_API_TOKEN is required.'), '5XX': SERVER_FAULT };
  return {
    '/internal/oauth/clients': {
      post: op('registerOAuthClient', 'Register a client that cannot register itself; a confidential one gets a secret, shown once.', {
        requestBody: {
          required: true,
          content: json({
            type: 'object',
            required: ['client_name', 'redirect_uris'],
            properties: {
              client_name: { type: 'string', maxLength: 100 },
              redirect_uris: { type: 'array', minItems: 1, maxItems: 10, items: { type: 'string' } },
              application_type: { enum: ['web', 'native'] },
              confidential: { type: 'boolean' },
            },
          }),
        },
        responses: {
          '201': { description: 'The client, with its secret when confidential.', content: json(client) },
          '400': problem('A missing name, bad redirect URIs or an unknown application type.'),
          '413': problem('The body is over 64 KiB.'),
          '415': problem('The body is not application/json.'),
          ...denied,
        },
      }),
      get: op('listOAuthClients', 'The operator-registered clients (no secrets).', {
        responses: { '200': { description: 'The clients.', content: json({ type: 'object', required: ['clients'], properties: { clients: { type: 'array', items: client } } }) }, ...denied },
      }),
    },
    '/internal/oauth/clients/{id}': {
      delete: op('deleteOAuthClient', 'Delete a client; its grants and what they issued are revoked.', {
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { '204': { description: 'Deleted.' }, '404': problem('No such client.'), ...denied },
      }),
    },
  };
}

/** The operators' incident and maintenance API (API.md section 17), with INTERNAL_API_TOKEN. */
function operatorStatusPaths(): Record<string, Json> {
  const json = (schema: Json) => ({ 'application/json': { schema } });
  const components = { type: 'array', minItems: 1, items: { enum: [...COMPONENTS] } };
  const common = (extra: Json): Json => ({
    '401': problem('INTERNAL_API_TOKEN is required.'),
    '413': problem('The body is over 64 KiB.'),
    '415': problem('The body is not application/json.'),
    '5XX': SERVER_FAULT,
    ...extra,
  });
  const op = (operationId: string, summary: string, rest: Json): Json => ({ operationId, summary, tags: ['Status'], security: [{ internalToken: [] }], ...rest });
  return {
    '/internal/status/incidents': {
      post: op('createIncident', 'Open an incident with its first update (an operator).', {
        requestBody: {
          required: true,
          content: json({
            type: 'object',
            required: ['title', 'impact', 'components', 'status', 'message'],
            properties: {
              title: { type: 'string', maxLength: 200 },
              impact: { enum: [...INCIDENT_IMPACTS] },
              components,
              status: { enum: [...INCIDENT_STATUSES] },
              message: { type: 'string', maxLength: 5000 },
            },
          }),
        },
        responses: { '201': { description: 'The incident.', content: json({ $ref: '#/components/schemas/Incident' }) }, ...common({ '400': problem('Unknown components, or empty text.') }) },
      }),
    },
    '/internal/status/incidents/{id}/updates': {
      post: op('addIncidentUpdate', 'Post an update to an open incident (`resolved` closes it).', {
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        requestBody: {
          required: true,
          content: json({ type: 'object', required: ['status', 'message'], properties: { status: { enum: [...INCIDENT_STATUSES] }, message: { type: 'string', maxLength: 5000 } } }),
        },
        responses: {
          '201': { description: 'The incident with its new update.', content: json({ $ref: '#/components/schemas/Incident' }) },
          ...common({ '400': problem('An unknown status, or empty text.'), '404': problem('No such incident.'), '409': problem('The incident is resolved already.') }),
        },
      }),
    },
    '/internal/status/maintenances': {
      post: op('createMaintenance', 'Plan maintenance.', {
        requestBody: {
          required: true,
          content: json({
            type: 'object',
            required: ['title', 'components', 'starts_at', 'ends_at', 'message'],
            properties: {
              title: { type: 'string', maxLength: 200 },
              components,
              starts_at: { type: 'string', format: 'date-time' },
              ends_at: { type: 'string', format: 'date-time' },
              message: { type: 'string', maxLength: 5000 },
            },
          }),
        },
        responses: {
          '201': { description: 'The maintenance.', content: json({ $ref: '#/components/schemas/Maintenance' }) },
          ...common({ '400': problem('Unknown components, bad times (ends_at not after starts_at), or empty text.') }),
        },
      }),
    },
    '/internal/status/maintenances/{id}': {
      delete: op('deleteMaintenance', 'Cancel (delete) a maintenance.', {
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { '204': { description: 'Deleted.' }, '401': problem('INTERNAL_API_TOKEN is required.'), '404': problem('No such maintenance.'), '5XX': SERVER_FAULT },
      }),
    },
  };
}

/** The plain-HTTP paths of the API host, described by hand (not GraphQL operations). */
function plainPaths(): Record<string, Json> {
  const provider = { name: 'provider', in: 'path', required: true, schema: { type: 'string', enum: ['google', 'github'] } };
  const redirect = (description: string): Json => ({
    description,
    headers: { Location: { description: 'Where the browser goes next.', schema: { type: 'string' } } },
  });
  return {
    '/auth/oauth/{provider}/start': {
      get: {
        operationId: 'startProviderSignIn',
        summary: "Send the browser to the provider's sign-in (or link, or re-authentication).",
        tags: ['Sign-in providers'],
        security: [{}, { cookie: [] }],
        parameters: [
          provider,
          { name: 'intent', in: 'query', required: false, description: '`link` adds the provider to the signed-in account (verified address and recent authentication needed); `reauth` re-authenticates the session.', schema: { type: 'string', enum: ['link', 'reauth'] } },
        ],
        responses: {
          '302': redirect("To the provider's authorization page."),
          '400': problem('An unknown `intent`.'),
          '401': problem('`intent=link` or `intent=reauth` without a session.'),
          '403': problem('`intent=link` with an unverified address, or without recent authentication (REAUTH_REQUIRED).'),
          '404': problem('Unknown or disabled provider.'),
          '5XX': SERVER_FAULT,
        },
      },
    },
    '/auth/oauth/{provider}/callback': {
      get: {
        operationId: 'finishProviderSignIn',
        summary: "The provider's return: signs in, links, or hands over to APP_URL/link-account or APP_URL/mfa.",
        tags: ['Sign-in providers'],
        security: [],
        parameters: [
          provider,
          { name: 'code', in: 'query', required: false, schema: { type: 'string' } },
          { name: 'state', in: 'query', required: false, schema: { type: 'string' } },
        ],
        responses: {
          '302': redirect('To APP_URL with the session set, or to the pending-link or second-step page.'),
          '400': {
            description: 'Bad or replayed state: a page pointing back to the app when the browser asks for HTML, else problem+json.',
            content: { 'application/problem+json': { schema: PROBLEM }, 'text/html': { schema: { type: 'string' } } },
          },
          '404': problem('Unknown or disabled provider.'),
          '5XX': SERVER_FAULT,
        },
      },
    },
    '/internal/tunnels/{id}/tools': {
      put: {
        operationId: 'pinTunnelTools',
        summary: "The edge reports a tunnel's tools/list result; the names are pinned in order, duplicates dropped.",
        tags: ['Tunnels'],
        security: [{ internalToken: [] }],
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['tools'],
                properties: { tools: { type: 'array', items: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } } } },
              },
            },
          },
        },
        responses: {
          '204': { description: 'Pinned.' },
          '400': problem('Not a tools/list result.'),
          '401': problem('INTERNAL_API_TOKEN is required.'),
          '404': problem('Unknown tunnel, or INTERNAL_API_TOKEN is not configured.'),
          '413': problem('The body is over 64 KiB.'),
          '415': problem('The body is not application/json.'),
          '5XX': SERVER_FAULT,
        },
      },
    },
    ...operatorStatusPaths(),
    ...operatorClientPaths(),
    '/readyz': {
      get: {
        operationId: 'readiness',
        summary: 'Ready while the database and the cache answer.',
        tags: ['Operations'],
        security: [],
        responses: {
          '200': {
            description: 'Ready.',
            content: { 'application/json': { schema: { type: 'object', properties: { status: { const: 'ready' }, checks: { type: 'object', additionalProperties: { type: 'string' } } } } } },
          },
          '503': problem('The database or the cache is unreachable.'),
        },
      },
    },
    '/healthz': {
      get: {
        operationId: 'liveness',
        summary: 'Liveness: the process answers.',
        tags: ['Operations'],
        security: [],
        responses: { '200': { description: 'Alive.', content: { 'text/plain': { schema: { const: 'ok' } } } } },
      },
    },
    '/metrics': {
      get: {
        operationId: 'metrics',
        summary: 'Prometheus metrics (with METRICS_TOKEN set, that bearer is needed; METRICS_PORT moves them off this port).',
        tags: ['Operations'],
        security: [{}, { metricsToken: [] }],
        responses: {
          '200': { description: 'Prometheus text format.', content: { 'text/plain': { schema: { type: 'string' } } } },
          '401': problem('A metrics token is required.'),
          '404': problem('Not served on this port: production without METRICS_TOKEN, or METRICS_PORT set.'),
        },
      },
    },
    '/openapi.json': {
      get: {
        operationId: 'openApiDocument',
        summary: 'This document.',
        tags: ['Operations'],
        security: [],
        responses: {
          '200': { description: 'OpenAPI 3.1.', content: { 'application/json': { schema: { type: 'object' } } } },
          '304': { description: 'Not modified (If-None-Match matched the ETag).' },
        },
      },
    },
  };
}

/** The framing answers every hand-described operation may give too (see errorsOf). */
function withTransportErrors(path: string, ops: Json): Json {
  const out: Json = {};
  for (const [method, op] of Object.entries(ops)) {
    if (method === 'servers') {
      out[method] = op;
      continue;
    }
    const responses = { ...((op as Json).responses as Json) };
    responses['400'] ??= problem(TRANSPORT_400);
    if (path.includes('{')) responses['414'] ??= problem(LONG_PARAM_414);
    out[method] = { ...(op as Json), responses: Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b))) };
  }
  return out;
}

const strip = (schema: Json): Json => {
  const { $schema: _s, $id: _i, ...rest } = schema;
  return rest;
};

/** The whole document, as plain JSON data. */
export function buildOpenApiDocument(schema: GraphQLSchema, routes: readonly RestRoute[], opts: OpenApiOptions): Json {
  // Named shapes and each route's answer go under components.schemas, referring to each other.
  const registry = z.registry<{ id: string }>();
  for (const [id, s] of Object.entries(NAMED_SCHEMAS)) registry.add(s, { id });
  const ids = new Set<string>();
  for (const route of routes) {
    const id = operationIdOf(route);
    if (ids.has(id)) throw new Error(`OpenAPI: two routes are named ${id}`);
    ids.add(id);
    if (route.response && !registry.has(route.response)) registry.add(route.response, { id: `${id[0]!.toUpperCase()}${id.slice(1)}Response` });
  }
  const uri = (id: string) => `#/components/schemas/${id}`;
  const printed = z.toJSONSchema(registry, { uri }) as { schemas: Record<string, Json> };
  const schemas = { ...Object.fromEntries(Object.entries(printed.schemas).map(([id, s]) => [id, strip(s)])), Incident: INCIDENT_SCHEMA, Maintenance: MAINTENANCE_SCHEMA };
  const responseRef = (route: RestRoute): Json | null => (route.response ? { $ref: uri(registry.get(route.response)!.id) } : null);

  const paths: Record<string, Json> = {};
  for (const route of routes) {
    const path = openApiPath(route.url);
    (paths[path] ??= {})[route.method.toLowerCase()] = operationOfRoute(schema, route, responseRef);
  }
  for (const [path, ops] of Object.entries({ ...plainPaths(), ...otherHostPaths(opts.zone) })) paths[path] = { ...paths[path], ...withTransportErrors(path, ops) };
  const sorted = Object.fromEntries(Object.entries(paths).sort(([a], [b]) => a.localeCompare(b)));

  return {
    openapi: '3.1.0',
    info: {
      title: `${opts.serviceName} REST API`,
      version: opts.version,
      description: [
        'The REST paths of the API host, the same operations as GraphQL (`/graphql`).',
        '',
        '- Bodies are JSON with snake_case keys; errors are `application/problem+json` (RFC 9457) with a `code`. An error about one input also names it: `errors: [{"pointer": "/name", "detail": "…"}]` (a query or path parameter as `parameter`), so a form can show `detail` beside its field.',
        '- Authenticate with the `session` cookie or `Authorization: Bearer <session token>`; a service token (`tsk_…`) reaches only what its scopes name.',
        '- A write (POST, PATCH, PUT, DELETE) without a bearer token from an `Origin` not in `ALLOWED_ORIGINS` is refused with 403.',
        '- The OAuth protocol endpoints follow their RFCs and are listed in `/.well-known/oauth-authorization-server`: device authorization (RFC 8628), token (RFC 6749), revocation (RFC 7009), introspection (RFC 7662), dynamic registration (RFC 7591).',
      ].join('\n'),
    },
    servers: [{ url: opts.serverUrl }],
    tags: TAGS.map(({ name, description }) => ({ name, description })),
    security: [{ cookie: [] }, { sessionBearer: [] }],
    paths: sorted,
    components: {
      schemas,
      securitySchemes: {
        cookie: { type: 'apiKey', in: 'cookie', name: 'session', description: 'The session cookie set by a sign-in (the dashboard).' },
        sessionBearer: { type: 'http', scheme: 'bearer', description: 'The session token answered by a sign-in (API clients).' },
        serviceToken: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'tsk_<32 base62><6 base62 CRC32>',
          description: 'A service token (`tsk_…`). Each operation lists the scopes that reach it; a token without one of them gets 403.',
        },
        internalToken: { type: 'http', scheme: 'bearer', description: 'INTERNAL_API_TOKEN, for the edge.' },
        metricsToken: { type: 'http', scheme: 'bearer', description: 'METRICS_TOKEN, when set.' },
      },
    },
  };
}

/** Every path and method of the document, as `METHOD /path` (for the coverage test). */
export function documentedOperations(doc: Json): Set<string> {
  const out = new Set<string>();
  for (const [path, ops] of Object.entries(doc.paths as Record<string, Json>)) for (const method of Object.keys(ops)) if (method !== 'servers') out.add(`${method.toUpperCase()} ${path}`);
  return out;
}
