// The OpenAPI 3.1 document of the REST paths (API.md section 16), printed from the route table the
// server mounts, so it cannot drift from what the server does:
// - parameters and request bodies from each operation's variable types (what variables.ts checks a
//   request against), with the GraphQL arguments' descriptions;
// - answers from each route's response schema (which its `respond` is typed to produce);
// - who may call from the route (public or not) and, for service tokens, from the same scope
//   reach the server enforces (the fields' tokenScopes, token-scopes.ts);
// - error statuses from the route's kind plus its own list, all problem+json.
// The paths that are plain HTTP (provider redirects, the edge's and the operators' internal calls,
// health and metrics, cards and the status page) declare themselves next to their handlers, with
// the zod schemas of what they read and answer (http/openapi-paths.ts), and are printed here; a
// test checks that every path the server registers on the API host is in the document.
import { Kind, type GraphQLSchema } from 'graphql';
import { z } from 'zod';
import { TOKEN_SCOPES } from '../../domain/tokens/scopes.js';
import { firstUnreachable } from '../graphql/token-scopes.js';
import { cardPaths } from '../edge/card-host.js';
import { problem as problemAnswer, RETRY_AFTER, SERVER_FAULT, type BodySchema, type Content, type RawHost, type RawPaths, type RawResponse } from '../openapi-paths.js';
import { healthPaths } from '../api/routes/health.js';
import { problemPaths } from '../api/routes/problems.js';
import { internalOAuthClientPaths } from '../api/routes/internal-oauth-clients.js';
import { internalStatusPaths } from '../api/routes/internal-status.js';
import { internalTunnelPaths } from '../api/routes/internal-tunnels.js';
import { metricsPaths } from '../api/routes/metrics.js';
import { providerSignInPaths } from '../api/routes/sso.js';
import { feedPaths } from '../edge/status/feed.js';
import { incidentListPaths } from '../edge/status/incident-list.js';
import { STATUS_SCHEMAS } from '../edge/status/schemas.js';
import { statusSubscriptionPaths } from '../edge/status/subscriptions.js';
import { statuspageSummaryPaths } from '../edge/status/summary.js';
import { statusPaths } from '../edge/zone-host.js';
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

/** The service-token scopes, in the document's order. */
const SCOPES = [...TOKEN_SCOPES].sort();

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

/** A declared answer whose schemas are plain JSON Schema (a problem), as the document prints it. */
const printed = (answer: RawResponse): Json => ({
  ...answer,
  ...(answer.content ? { content: Object.fromEntries(Object.entries(answer.content).map(([type, schema]) => [type, { schema }])) } : {}),
});
const problem = (description: string, headers?: Json): Json => printed(problemAnswer(description, headers));
const WWW_AUTHENTICATE = {
  'WWW-Authenticate': {
    description:
      'On a 401 for the credential (RFC 6750): `Bearer error="invalid_token"` when a bearer token was presented and is unknown, expired or revoked; `Bearer` when no credential came. Not sent when the 401 is about a password or code in the body.',
    schema: { type: 'string' },
  },
};

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
  const scopes = SCOPES.filter((scope) => firstUnreachable(schema, route.document, [scope]) === null);
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
  responses['5XX'] = printed(SERVER_FAULT);
  op.responses = responses;
  return op;
}

/** GET /openapi.json (openapi-route.ts serves what this module prints). */
const documentPaths: RawPaths = {
  '/openapi.json': {
    get: {
      operationId: 'openApiDocument',
      summary: 'This document.',
      tags: ['Operations'],
      security: [],
      responses: {
        '200': { description: 'OpenAPI 3.1.', content: { 'application/json': { type: 'object' } } },
        '304': { description: 'Not modified (If-None-Match matched the ETag).' },
      },
    },
  },
};

/** The plain-HTTP paths (not GraphQL operations), each declared next to its handler. */
const RAW_PATHS: RawPaths = {
  ...providerSignInPaths,
  ...internalTunnelPaths,
  ...internalStatusPaths,
  ...internalOAuthClientPaths,
  ...healthPaths,
  ...problemPaths,
  ...metricsPaths,
  ...documentPaths,
  ...cardPaths,
  ...statusPaths,
  ...statuspageSummaryPaths,
  ...incidentListPaths,
  ...feedPaths,
  ...statusSubscriptionPaths,
};

const METHODS = ['get', 'post', 'put', 'delete'] as const;

/** The servers of a path on another host than the API's: ZONE, or a tunnel host. */
function serversOf(host: RawHost | undefined, zone: string): Json[] | null {
  if (host === 'zone') return [{ url: `https://${zone}` }];
  if (host === 'tunnel') {
    return [{ url: 'https://{host}', variables: { host: { default: `tools--you.${zone}`, description: 'A tunnel host (`<subdomain>--<slug>.ZONE`) or its custom domain.' } } }];
  }
  return null;
}

const isZod = (schema: BodySchema): schema is z.ZodType => schema instanceof z.ZodType;

/**
 * Prints the raw paths: a zod body schema becomes JSON Schema (a request as it is read, an answer
 * as it is written, through `answerSchema`, which refers to the named components); a plain one
 * stays as it is.
 */
function printRawPaths(paths: RawPaths, zone: string, answerSchema: (schema: z.ZodType) => Json): Record<string, Json> {
  const contentOf = (content: Content, print: (schema: z.ZodType) => Json): Json =>
    Object.fromEntries(Object.entries(content).map(([type, schema]) => [type, { schema: isZod(schema) ? print(schema) : schema }]));
  const requestSchema = (schema: z.ZodType): Json => strip(z.toJSONSchema(schema, { io: 'input' }) as Json);
  const out: Record<string, Json> = {};
  for (const [path, declared] of Object.entries(paths)) {
    const servers = serversOf(declared.host, zone);
    const item: Json = servers ? { servers } : {};
    for (const method of METHODS) {
      const op = declared[method];
      if (!op) continue;
      const responses = Object.fromEntries(
        Object.entries(op.responses).map(([status, r]) => [status, { ...r, ...(r.content ? { content: contentOf(r.content, answerSchema) } : {}) }]),
      );
      item[method] = {
        ...op,
        ...(op.requestBody ? { requestBody: { ...op.requestBody, content: contentOf(op.requestBody.content, requestSchema) } } : {}),
        responses,
      };
    }
    out[path] = withTransportErrors(path, item);
  }
  return out;
}

/** The framing answers every plain-HTTP operation may give too (see errorsOf). */
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
  for (const [id, s] of Object.entries({ ...NAMED_SCHEMAS, ...STATUS_SCHEMAS })) registry.add(s, { id });
  const ids = new Set<string>();
  for (const route of routes) {
    const id = operationIdOf(route);
    if (ids.has(id)) throw new Error(`OpenAPI: two routes are named ${id}`);
    ids.add(id);
    if (route.response && !registry.has(route.response)) registry.add(route.response, { id: `${id[0]!.toUpperCase()}${id.slice(1)}Response` });
  }
  // The raw paths' answers are printed in the same pass, under ids of their own, then put back
  // in place: only the named shapes stay components.
  const inline = new Set<string>();
  for (const path of Object.values(RAW_PATHS)) {
    for (const method of METHODS) {
      for (const response of Object.values(path[method]?.responses ?? {})) {
        for (const body of Object.values(response.content ?? {})) {
          if (isZod(body) && !registry.has(body)) {
            const id = `RawAnswer${inline.size}`;
            registry.add(body, { id });
            inline.add(id);
          }
        }
      }
    }
  }
  const uri = (id: string) => `#/components/schemas/${id}`;
  const printed = z.toJSONSchema(registry, { uri }) as { schemas: Record<string, Json> };
  const schemas = Object.fromEntries(Object.entries(printed.schemas).filter(([id]) => !inline.has(id)).map(([id, s]) => [id, strip(s)]));
  const inlined = (json: unknown): unknown => {
    if (Array.isArray(json)) return json.map(inlined);
    if (typeof json !== 'object' || json === null) return json;
    const ref = (json as Json).$ref;
    const id = typeof ref === 'string' ? ref.slice(uri('').length) : '';
    if (inline.has(id)) return inlined(strip(printed.schemas[id]!));
    return Object.fromEntries(Object.entries(json).map(([k, v]) => [k, inlined(v)]));
  };
  const answerSchema = (body: z.ZodType): Json => inlined({ $ref: uri(registry.get(body)!.id) }) as Json;
  const responseRef = (route: RestRoute): Json | null => (route.response ? { $ref: uri(registry.get(route.response)!.id) } : null);

  const paths: Record<string, Json> = {};
  for (const route of routes) {
    const path = openApiPath(route.url);
    (paths[path] ??= {})[route.method.toLowerCase()] = operationOfRoute(schema, route, responseRef);
  }
  for (const [path, item] of Object.entries(printRawPaths(RAW_PATHS, opts.zone, answerSchema))) paths[path] = { ...paths[path], ...item };
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
