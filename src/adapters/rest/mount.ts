// Mounts the declarative route table: each request runs its GraphQL operation in-process on the
// same schema (documents parsed and validated once, at start-up), then maps errors to
// problem+json through the same classification GraphQL uses.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type DocumentNode, type GraphQLSchema, execute, parse, validate } from 'graphql';
import { AppError } from '../../domain/errors.js';
import type { GraphQLContext } from '../graphql/context.js';
import { classifyError } from '../graphql/errors.js';
import { sendProblem } from '../http/problem.js';
import type { RestRoute } from './route.js';

function compile(schema: GraphQLSchema, route: RestRoute): DocumentNode {
  const document = parse(route.document);
  const errors = validate(schema, document);
  if (errors.length > 0) throw new Error(`REST ${route.method} ${route.url}: ${errors.map((e) => e.message).join('; ')}`);
  return document;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function variablesOf(route: RestRoute, req: FastifyRequest): Record<string, unknown> {
  const variables: Record<string, unknown> = {};
  if (route.body) {
    let body: unknown = req.body ?? {};
    if (!isPlainObject(body)) {
      if (!route.bodyFallback) throw new AppError('BAD_REQUEST', 'The request body must be a JSON object.');
      body = {};
    }
    const fields = body as Record<string, unknown>;
    // An absent field stays absent (GraphQL would coerce `undefined` to null: "clear it").
    for (const [field, variable] of Object.entries(route.body)) {
      const fallback = route.bodyFallback?.[field];
      const value = fallback !== undefined && typeof fields[field] !== 'string' ? fallback : fields[field];
      if (value !== undefined) variables[variable] = value;
    }
  }
  const params = (req.params ?? {}) as Record<string, string>;
  for (const [param, variable] of Object.entries(route.params ?? {})) {
    // No stored id holds a NUL byte (PostgreSQL text cannot), and a query with one fails.
    if (params[param]?.includes('\u0000')) throw new AppError('NOT_FOUND', 'Not found.');
    variables[variable] = params[param];
  }
  return variables;
}

/** GraphQL speaks of `$currentPassword`; a REST client sent `current_password`. */
function restMessage(route: RestRoute, message: string): string {
  const m = /^Variable "\$(\w+)" (?:of required type "[^"]+" was not provided|of non-null type "[^"]+" must not be null|got invalid value)/.exec(message);
  if (!m) return message;
  const field = Object.entries({ ...route.body, ...route.params }).find(([, v]) => v === m[1])?.[0] ?? m[1];
  if (!message.includes('invalid value')) return `"${field}" is required.`;
  return /\bBoolean cannot represent/.test(message) ? `"${field}" must be a boolean.` : `"${field}" must be a string.`;
}

export function mountRest(
  app: FastifyInstance,
  schema: GraphQLSchema,
  routes: RestRoute[],
  contextOf: (req: FastifyRequest, reply: FastifyReply) => GraphQLContext,
): void {
  for (const route of routes) {
    const document = compile(schema, route);
    app.route({
      method: route.method,
      url: route.url,
      handler: async (req, reply) => {
        let variableValues: Record<string, unknown>;
        try {
          variableValues = variablesOf(route, req);
        } catch (err) {
          return sendProblem(reply, classifyError(err));
        }
        const result = await execute({ schema, document, variableValues, contextValue: contextOf(req, reply) });
        const error = result.errors?.[0];
        if (error) {
          const classified = classifyError(error);
          if (classified.code === 'INTERNAL') req.log.error({ err: error.originalError ?? error }, 'REST operation failed');
          return sendProblem(reply, { ...classified, message: restMessage(route, classified.message) });
        }
        try {
          const body = route.respond?.((result.data ?? {}) as Record<string, unknown>);
          if (route.status === 204 || body === undefined) return reply.status(route.status).send();
          return reply.status(route.status).send(body);
        } catch (err) {
          return sendProblem(reply, classifyError(err));
        }
      },
    });
  }
}
