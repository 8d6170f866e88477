// Mounts the declarative route table: each request runs its GraphQL operation in-process on the
// same schema (documents validated and compiled to JavaScript once, at start-up, by graphql-jit:
// a list's per-field execution was a fifth of its CPU under graphql-js), then maps errors to
// problem+json through the same classification GraphQL uses. The request's inputs are checked
// against the operation's own variable types first (variables.ts), so a REST client hears about
// its field (`current_password`), not GraphQL's variable (`$currentPassword`). An error about one
// input (the domain's `field`, named as the operation's argument) names the REST input it came
// from: `errors: [{pointer, detail}]` for a body member, `parameter` for a query or path parameter.
//
// Credentials come before the body: a route that is not `public` refuses a request without a
// valid session or token with 401 as soon as it arrives (an onRequest hook, after session-auth.ts
// has read the credential), before Fastify reads the body, so neither a missing field (400), nor
// malformed JSON (400), nor another media type (415) answers first. Only a body declared over
// 64 KiB is refused before that (413), like the other limits of the transport.
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { type DocumentNode, type GraphQLSchema, Kind, validate, visit } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import type { AppError } from '../../domain/errors.js';
import { BODY_LIMIT, bearerChallenge, bodyTooLarge, classifyError, signInRequired } from '../errors.js';
import type { GraphQLContext } from '../graphql/context.js';
import { sendProblem, type InvalidInput } from '../problem.js';
import type { RestRoute } from './route.js';
import { tokenScopeError } from '../graphql/token-scopes.js';
import { operationShowsAccount } from '../graphql/types/account.js';
import { operationOf, routeVariables, variablesOf, type RouteVariable } from './variables.js';

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
): { document: DocumentNode; variables: Map<string, RouteVariable>; places: ReturnType<typeof placesOf>; run: CompiledQuery['query'] } {
  const document = route.document as DocumentNode;
  const errors = validate(schema, document);
  if (errors.length > 0) throw new Error(`REST ${route.method} ${route.url}: ${errors.map((e) => e.message).join('; ')}`);
  const compiled = compileQuery(schema, document);
  if (!isCompiledQuery(compiled)) throw new Error(`REST ${route.method} ${route.url}: ${(compiled.errors ?? []).map((e) => e.message).join('; ')}`);
  return { document, variables: routeVariables(schema, route), places: placesOf(route), run: compiled.query };
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
    const { document, variables: definitions, places, run } = compile(schema, route);
    app.route({
      method: route.method,
      url: route.url,
      // A route that shows the account reads a session that is not cached with its view (session-auth.ts).
      config: { accountView: route.method === 'GET' && operationShowsAccount(document) },
      ...(route.public ? {} : { onRequest: signedInFirst }),
      handler: async (req, reply) => {
        const refused = tokenScopeError(schema, document, req.viewer);
        if (refused) return sendProblem(reply, refused);
        let variables: Record<string, unknown>;
        try {
          variables = variablesOf(route, definitions, req);
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
