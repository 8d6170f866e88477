// The GraphQL endpoint: Yoga over the Pothos schema, with depth/cost limits and error masking.
import { EnvelopArmorPlugin } from '@escape.tech/graphql-armor';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { NoSchemaIntrospectionCustomRule } from 'graphql';
import { createYoga, type Plugin } from 'graphql-yoga';
import { problemBySlug, problemTypeUri } from '../../domain/problems.js';
import type { Logger } from 'pino';
import type { GraphQLContext } from './context.js';
import { maskError } from './errors.js';
import { OnePasswordPerRequest } from './password-budget.js';
import { schema } from './schema.js';
import { asGraphQLError, tokenScopeError } from './token-scopes.js';
import { GRAPHIQL_CSP, renderLocalGraphiQL } from '../console/graphiql.js';
import { bearerChallenge, graphqlProblem } from '../errors.js';

export interface YogaServerContext {
  req: FastifyRequest;
  reply: FastifyReply;
}

// Validation errors skip error masking and carry Yoga's GRAPHQL_VALIDATION_FAILED; the contract
// allows only the catalog's codes (API.md section 5), so they become BAD_REQUEST, typed
// graphql-invalid (a rule of ours names its own entry in extensions.problem).
const catalogValidationCodes = (baseUrl: string): Plugin => ({
  onValidate: () => ({ valid, result }) => {
    if (valid) return;
    for (const error of result) {
      const extensions = error.extensions as Record<string, unknown>;
      const problem = (typeof extensions.problem === 'string' ? problemBySlug(extensions.problem) : undefined) ?? graphqlProblem(extensions.code);
      delete extensions.problem;
      extensions.code = problem.code;
      extensions.type = problemTypeUri(baseUrl, problem);
    }
  },
});

// In production the schema is not served to strangers (GRAPHQL_INTROSPECTION turns it back on).
const onePasswordPerRequest: Plugin = {
  onValidate: ({ addValidationRule }) => {
    addValidationRule(OnePasswordPerRequest);
  },
};

// GraphiQL from local assets (src/adapters/console/graphiql.ts) under its own CSP.
const GRAPHIQL_DEFAULT_QUERY = '# The signed-in account (this browser\'s session cookie).\n{\n  me {\n    email\n  }\n}\n';
const graphiqlHeaders: Plugin = {
  onResponse: ({ response }) => {
    if (!response.headers.get('content-type')?.startsWith('text/html')) return;
    response.headers.set('content-security-policy', GRAPHIQL_CSP);
    response.headers.set('referrer-policy', 'no-referrer');
    response.headers.set('x-content-type-options', 'nosniff');
    response.headers.set('x-frame-options', 'DENY');
  },
};

// A service token reaches only what its scopes name (token-scopes.ts), before anything runs.
const tokenScopes = (baseUrl: string): Plugin => ({
  onExecute: ({ args, setResultAndStopExecution }) => {
    const error = tokenScopeError(args.schema, args.document, (args.contextValue as unknown as GraphQLContext).viewer);
    if (error) setResultAndStopExecution({ errors: [asGraphQLError(error, baseUrl)] });
  },
});

// A bearer token that did not authenticate (unknown, expired, revoked) is answered as signed out,
// as ever (`me: null`, UNAUTHENTICATED errors, HTTP 200), and the answer says why: RFC 6750's
// `invalid_token` challenge (API.md section 13a; RFC 7235 section 4.1 allows the header on any
// answer), so a client can tell a dead token from a signed-out query. Cookies and anonymous
// requests get no challenge.
const invalidTokenChallenge: Plugin<Record<string, unknown>, YogaServerContext> = {
  onResponse: ({ serverContext, response }) => {
    const { req } = serverContext;
    if (req.credentialVia === 'bearer' && req.viewer === null) response.headers.set('www-authenticate', bearerChallenge(true));
  },
};

const noIntrospection: Plugin = {
  onValidate: ({ addValidationRule }) => {
    addValidationRule(NoSchemaIntrospectionCustomRule);
  },
};

export function createGraphQLServer(opts: {
  production: boolean;
  introspection: boolean;
  logger: Logger;
  /** BASE_URL: errors carry their problem type's URI under it in extensions.type. */
  baseUrl: string;
  context: (server: YogaServerContext) => GraphQLContext;
}) {
  return createYoga<YogaServerContext, GraphQLContext>({
    schema,
    graphqlEndpoint: '/graphql',
    graphiql: opts.production ? false : { title: 'GraphiQL', defaultQuery: GRAPHIQL_DEFAULT_QUERY },
    renderGraphiQL: renderLocalGraphiQL,
    landingPage: false,
    // CORS is the API host's (src/http/cors.ts: ALLOWED_ORIGINS only); Yoga's default would
    // reflect any Origin with credentials.
    cors: false,
    logging: false,
    maskedErrors: { maskError: (error) => maskError(error, opts.baseUrl) },
    context: ({ req, reply }) => opts.context({ req, reply }),
    plugins: [
      graphiqlHeaders,
      invalidTokenChallenge,
      tokenScopes(opts.baseUrl),
      onePasswordPerRequest,
      ...(opts.introspection ? [] : [noIntrospection]),
      catalogValidationCodes(opts.baseUrl),
      EnvelopArmorPlugin({
        maxDepth: { n: 10, flattenFragments: true, ignoreIntrospection: true },
        costLimit: { maxCost: 5000, ignoreIntrospection: true },
        maxAliases: { n: 15 },
        maxDirectives: { n: 50 },
        maxTokens: { n: 1000 },
        blockFieldSuggestion: { enabled: opts.production },
      }),
    ],
  });
}
