import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { printSchema } from 'graphql';
import { schema } from '../../../src/adapters/graphql/schema.js';

test('graphql/schema.graphql matches the schema the server builds (run `npm run schema:print`)', () => {
  const committed = readFileSync(new URL('../../../graphql/schema.graphql', import.meta.url), 'utf8');
  assert.equal(committed, `${printSchema(schema)}\n`);
});
