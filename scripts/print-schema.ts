// Writes the printed SDL to graphql/schema.graphql (a test fails when it is stale).
import { writeFileSync } from 'node:fs';
import { printSchema } from 'graphql';
import { schema } from '../src/adapters/graphql/schema.js';

writeFileSync(new URL('../graphql/schema.graphql', import.meta.url), `${printSchema(schema)}\n`);
process.stdout.write('graphql/schema.graphql written\n');
