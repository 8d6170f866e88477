// The GraphQL endpoint: Yoga over the Pothos schema, with depth/cost limits and error masking.
import { EnvelopArmorPlugin } from '@escape.tech/graphql-armor';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { createYoga } from 'graphql-yoga';
import type { Logger } from 'pino';
import type { GraphQLContext } from './context.js';
import { maskError } from './errors.js';
import { schema } from './schema.js';

export interface YogaServerContext {
  req: FastifyRequest;
  reply: FastifyReply;
}

export function createGraphQLServer(opts: {
  production: boolean;
  logger: Logger;
  context: (server: YogaServerContext) => GraphQLContext;
}) {
  return createYoga<YogaServerContext, GraphQLContext>({
    schema,
    graphqlEndpoint: '/graphql',
    graphiql: !opts.production,
    landingPage: false,
    logging: false,
    maskedErrors: { maskError: (error) => maskError(error) },
    context: ({ req, reply }) => opts.context({ req, reply }),
    plugins: [
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
