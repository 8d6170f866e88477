// Baseline: a bare graphql-yoga server on node:http answering `{ hello }`.
import { createServer } from 'node:http';
import { createSchema, createYoga } from 'graphql-yoga';

const yoga = createYoga({
  schema: createSchema({ typeDefs: 'type Query { hello: String! }', resolvers: { Query: { hello: () => 'world' } } }),
  logging: false,
  graphiql: false,
});
createServer(yoga).listen(Number(process.env.PORT), process.env.HOST ?? '127.0.0.1');
