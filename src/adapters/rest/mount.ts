// Mounts the declarative route table: each request runs its GraphQL operation in-process on the
// same schema (documents validated and compiled to JavaScript once, at start-up, by graphql-jit:
// a list's per-field execution was a fifth of its CPU under graphql-js), then maps errors to
// problem+json through the same classification GraphQL uses. The JSON body is checked against the operation's own
// variable definitions first, so a REST client hears about its field (`current_password`), not
// GraphQL's variable (`$currentPassword`). An error about one input (the domain's `field`, named
// as the operation's argument) names the REST input it came from: `errors: [{pointer, detail}]`
// for a body member, `parameter` for a query or path parameter.
//
// Credentials come before the body: a route that is not `public` refuses a request without a
// valid session or token with 401 as soon as it arrives (an onRequest hook, after session-auth.ts
// has read the credential), before Fastify reads the body, so neither a missing field (400), nor
// malformed JSON (400), nor another media type (415) answers first. Only a body declared over
// 64 KiB is refused before that (413), like the other limits of the transport.
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { type DocumentNode, type GraphQLSchema, Kind, type OperationDefinitionNode, type TypeNode, validate, visit } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import { type AppError, badRequest, invalidInput, notFound } from '../../domain/errors.js';
import { BODY_LIMIT, bearerChallenge, bodyTooLarge, classifyError, signInRequired } from '../errors.js';
import type { GraphQLContext } from '../graphql/context.js';
import { sendProblem, type InvalidInput } from '../http/problem.js';
import type { RestRoute } from './route.js';
import { tokenScopeError } from '../graphql/token-scopes.js';

/** What a variable accepts, read from its definition in the document. */
export interface VariableRule {
  required: boolean;
  type: 'string' | 'boolean' | 'id' | 'int' | 'object' | 'strings';
}

const SCALAR_RULES: Record<string, VariableRule['type']> = { String: 'string', Boolean: 'boolean', ID: 'id', Int: 'int', JSONObject: 'object' };

/** `[String!]` (scopes): a list of strings. */
function isStringList(type: TypeNode): boolean {
  if (type.kind !== Kind.LIST_TYPE) return false;
  const item = type.type;
  return item.kind === Kind.NON_NULL_TYPE && item.type.kind === Kind.NAMED_TYPE && item.type.name.value === 'String';
}

function ruleOf(type: TypeNode, route: RestRoute): VariableRule {
  const required = type.kind === Kind.NON_NULL_TYPE;
  const named = type.kind === Kind.NON_NULL_TYPE ? type.type : type;
  if (isStringList(named)) return { required, type: 'strings' };
  const scalar = named.kind === Kind.NAMED_TYPE ? SCALAR_RULES[named.name.value] : undefined;
  if (!scalar) throw new Error(`REST ${route.method} ${route.url}: variables must be String, Boolean, ID, Int, JSONObject or [String!]`);
  return { required, type: scalar };
}

/** The route's operation (the first of its document). */
export function operationOf(route: RestRoute): OperationDefinitionNode {
  const operation = (route.document as DocumentNode).definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  if (!operation) throw new Error(`REST ${route.method} ${route.url}: the document has no operation`);
  return operation;
}

/** What each variable of the route's operation accepts: what the server checks a request against,
 *  and what the OpenAPI document prints as its parameters and body. */
export function variableRules(route: RestRoute): Map<string, VariableRule> {
  return new Map((operationOf(route).variableDefinitions ?? []).map((v) => [v.variable.name.value, ruleOf(v.type, route)]));
}

/** Where a REST request gives an input: a body member or a query or path parameter. */
type Place = Omit<InvalidInput, 'detail'>;

/** Each variable's REST input, and each argument's through the variable the document passes it. */
function placesOf(route: RestRoute): { byVariable: Map<string, Place>; byArgument: Map<string, Place> } {
  const byVariable = new Map<string, Place>();
  for (const [field, variable] of Object.entries(route.body ?? {})) byVariable.set(variable, { pointer: `/${field.replace(/~/g, '~0').replace(/\//g, '~1')}` });
  for (const [name, variable] of Object.entries({ ...route.params, ...route.query })) byVariable.set(variable, { parameter: name });
  const byArgument = new Map<string, Place>();
  visit(operationOf(route), {
    Argument(node) {
      const place = node.value.kind === Kind.VARIABLE ? byVariable.get(node.value.name.value) : undefined;
      if (place) byArgument.set(node.name.value, place);
    },
  });
  return { byVariable, byArgument };
}

/** The problem's `errors` member for an error about one input, when the request gave it. */
const invalidAt = (error: AppError, places: Map<string, Place>): InvalidInput[] | undefined => {
  const place = error.extra.field === undefined ? undefined : places.get(error.extra.field);
  return place ? [{ ...place, detail: error.message }] : undefined;
};

function compile(
  schema: GraphQLSchema,
  route: RestRoute,
): { document: DocumentNode; rules: Map<string, VariableRule>; places: ReturnType<typeof placesOf>; run: CompiledQuery['query'] } {
  const document = route.document as DocumentNode;
  const errors = validate(schema, document);
  if (errors.length > 0) throw new Error(`REST ${route.method} ${route.url}: ${errors.map((e) => e.message).join('; ')}`);
  const compiled = compileQuery(schema, document);
  if (!isCompiledQuery(compiled)) throw new Error(`REST ${route.method} ${route.url}: ${(compiled.errors ?? []).map((e) => e.message).join('; ')}`);
  return { document, rules: variableRules(route), places: placesOf(route), run: compiled.query };
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function accepts(type: VariableRule['type'], value: unknown): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'boolean':
      return typeof value === 'boolean';
    case 'id':
      return typeof value === 'string' || Number.isInteger(value);
    case 'int':
      return Number.isInteger(value);
    case 'object':
      return isPlainObject(value);
    case 'strings':
      return Array.isArray(value) && value.every((v) => typeof v === 'string');
  }
}

const MUST_BE: Record<VariableRule['type'], string> = {
  string: 'a string',
  boolean: 'a boolean',
  id: 'a string',
  int: 'an integer',
  object: 'a JSON object',
  strings: 'a list of strings',
};

function variablesOf(route: RestRoute, rules: Map<string, VariableRule>, req: FastifyRequest): Record<string, unknown> {
  const variables: Record<string, unknown> = {};
  const fieldOf = new Map<string, string>();
  if (route.body) {
    let body: unknown = req.body ?? {};
    if (!isPlainObject(body)) {
      if (!route.bodyFallback) throw badRequest('The request body must be a JSON object.');
      body = {};
    }
    const fields = body as Record<string, unknown>;
    // An absent field stays absent (GraphQL would coerce `undefined` to null: "clear it").
    for (const [field, variable] of Object.entries(route.body)) {
      fieldOf.set(variable, field);
      const fallback = route.bodyFallback?.[field];
      const value = fallback !== undefined && typeof fields[field] !== 'string' ? fallback : fields[field];
      if (value !== undefined) variables[variable] = value;
    }
  }
  const params = (req.params ?? {}) as Record<string, string>;
  for (const [param, variable] of Object.entries(route.params ?? {})) {
    // No stored id holds a NUL byte (PostgreSQL text cannot), and a query with one fails.
    if (params[param]?.includes('\u0000')) throw notFound();
    fieldOf.set(variable, param);
    variables[variable] = params[param];
  }
  const query = (req.query ?? {}) as Record<string, string | string[] | undefined>;
  for (const [name, variable] of Object.entries(route.query ?? {})) {
    const raw = query[name];
    if (raw === undefined || raw === '') continue;
    fieldOf.set(variable, name);
    if (Array.isArray(raw)) throw badRequest(`"${name}" must be given once.`);
    // Query strings are text: an Int variable takes plain decimal digits, anything else is refused.
    variables[variable] = rules.get(variable)?.type === 'int' ? (/^[0-9]{1,9}$/.test(raw) ? Number(raw) : raw) : raw;
  }
  for (const [variable, rule] of rules) {
    const value = variables[variable];
    const field = fieldOf.get(variable) ?? variable;
    // `field` of these errors is the variable: its REST input is looked up by the caller.
    if (value === undefined || value === null) {
      if (rule.required) throw invalidInput(variable, `"${field}" is required.`);
    } else if (!accepts(rule.type, value)) {
      throw invalidInput(variable, `"${field}" must be ${MUST_BE[rule.type]}.`);
    }
  }
  return variables;
}

/** A body whose Content-Length is over the limit: refused unread, whoever sends it. */
function declaredTooLarge(req: FastifyRequest): boolean {
  const length = req.headers['content-length'];
  return length !== undefined && Number(length) > BODY_LIMIT;
}

/**
 * The signed-in gate of every route that is not `public`: no valid session or token, 401 before
 * the body is read (with the RFC 6750 challenge: `invalid_token` when a bearer token was
 * presented). The viewer was set by the application's onRequest hook (session-auth.ts), which
 * runs before a route's own.
 */
const signedInFirst: onRequestAsyncHookHandler = async (req, reply) => {
  if (req.viewer) return;
  if (declaredTooLarge(req)) throw bodyTooLarge();
  const presentedBearer = req.credentialVia === 'bearer';
  sendProblem(reply, signInRequired(presentedBearer), { 'www-authenticate': bearerChallenge(presentedBearer) });
  return reply;
};

export function mountRest(
  app: FastifyInstance,
  schema: GraphQLSchema,
  routes: RestRoute[],
  contextOf: (req: FastifyRequest, reply: FastifyReply) => GraphQLContext,
): void {
  for (const route of routes) {
    const { document, rules, places, run } = compile(schema, route);
    app.route({
      method: route.method,
      url: route.url,
      ...(route.public ? {} : { onRequest: signedInFirst }),
      handler: async (req, reply) => {
        const refused = tokenScopeError(schema, document, req.viewer);
        if (refused) return sendProblem(reply, refused);
        let variables: Record<string, unknown>;
        try {
          variables = variablesOf(route, rules, req);
        } catch (err) {
          const { error } = classifyError(err);
          return sendProblem(reply, error, {}, invalidAt(error, places.byVariable));
        }
        const result = await run(undefined, contextOf(req, reply), variables);
        const failure = result.errors?.[0];
        if (failure) {
          const { error, internal } = classifyError(failure);
          if (internal) req.log.error({ err: failure.originalError ?? failure }, 'REST operation failed');
          return sendProblem(reply, error, {}, invalidAt(error, places.byArgument));
        }
        const body = route.respond?.(result.data ?? {});
        if (route.status === 204 || body === undefined) return reply.status(route.status).send();
        return reply.status(route.status).send(body);
      },
    });
  }
}
