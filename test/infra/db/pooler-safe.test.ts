// Behind PgBouncer in transaction mode a server connection is only ours for one transaction, and
// bookworm's PgBouncer (1.18) carries no named prepared statements. So the code must keep no
// session state: no session-level advisory lock (the migration runner's goes to
// DATABASE_DIRECT_URL), no SET outside a transaction's LOCAL, no LISTEN, no named statements
// (the hot statements are named only when no pooler is declared: test/infra/db/prepared.test.ts).
// The scale-out tests (test/scale) run the whole server through a real PgBouncer; this guards
// the sources against a new use creeping in.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';

const SRC = join(import.meta.dirname, '..', '..', '..', 'src');
const files = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? (d.name === 'generated' ? [] : files(join(dir, d.name))) : d.name.endsWith('.ts') ? [join(dir, d.name)] : [],
  );

const RULES: [RegExp, string][] = [
  [/pg_(try_)?advisory_lock(_shared)?\s*\(/i, 'a session-level advisory lock (use pg_advisory_xact_lock in a transaction)'],
  [/[`']\s*SET\s+(?!LOCAL\b)(SESSION\s+)?[a-z_.]+\s*(=|TO\b)/i, 'a session SET (use SET LOCAL inside a transaction)'],
  [/[`'"]\s*(LISTEN|UNLISTEN)\s/i, 'LISTEN (a pooled connection is not ours between transactions)'],
  [/statementNameGenerator|\bname:\s*['"`][^'"`]+['"`],\s*text:/, 'a named prepared statement'],
];

test('no session state outside the migration runner, which uses DATABASE_DIRECT_URL', () => {
  const found: string[] = [];
  for (const file of files(SRC)) {
    const rel = relative(SRC, file);
    const text = readFileSync(file, 'utf8');
    for (const [re, what] of RULES) {
      if (rel === join('infra', 'db', 'migrate.ts') && what.startsWith('a session-level advisory lock')) continue;
      if (re.test(text.replace(/^\s*(\/\/|\*).*$/gm, ''))) found.push(`${rel}: ${what}`);
    }
  }
  assert.deepEqual(found, []);
});

test('the rules catch what they are for', () => {
  const hits = (code: string) => RULES.filter(([re]) => re.test(code)).length;
  assert.equal(hits("await client.query('SELECT pg_advisory_lock($1)', [1])"), 1);
  assert.equal(hits('await tx.$queryRaw`SELECT pg_try_advisory_xact_lock(${id})`'), 0);
  assert.equal(hits("await db.$executeRawUnsafe('SET search_path = app')"), 1);
  assert.equal(hits("await tx.$executeRawUnsafe('SET LOCAL lock_timeout = 1000')"), 0);
  assert.equal(hits("await client.query('LISTEN cards')"), 1);
  assert.equal(hits("new PrismaPg({ connectionString, statementNameGenerator: (q) => q.sql })"), 1);
});

test('migrations run on DATABASE_DIRECT_URL when it is set', () => {
  const client = readFileSync(join(SRC, 'infra', 'db', 'client.ts'), 'utf8');
  assert.match(client, /applyMigrations\(opts\.directUrl \?\? url,/);
  for (const entry of ['deps.ts', 'migrate.ts']) {
    assert.match(readFileSync(join(SRC, entry), 'utf8'), /directUrl: config\.databaseDirectUrl/, entry);
  }
});
