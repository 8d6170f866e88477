// The sign-in statement (sessions/store.ts) is a named statement: PostgreSQL plans it for the
// first executions on a connection, then keeps one generic plan when that plan costs no more than
// planning anew would save. With the eviction's OFFSET a parameter, the generic plan guessed a
// tenth of an account's sessions evicted; wherever the statistics put many sessions on an account
// (a large table: about 28 at a million accounts), that guess priced the generic plan above a
// fresh one, and every sign-in paid a new plan (0.7-0.9 ms of PostgreSQL CPU, bench:scale).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import pino from 'pino';
import { runSignIn } from '../../../src/domain/sessions/store.js';
import { openDatabase } from '../../../src/infra/db/client.js';
import { needs } from '../../support/backends.js';
import { freshDatabase } from '../../support/scale.js';

const MIGRATIONS = join(import.meta.dirname, '..', '..', '..', 'migrations');

test(
  'the sign-in statement keeps one generic plan where accounts have many sessions',
  needs(['DATABASE_URL'], 'the plan cache of a PostgreSQL backend, with statistics of its own database'),
  async () => {
    const fresh = await freshDatabase(process.env.DATABASE_URL!, 't_signin_plan');
    const dataDir = mkdtempSync(join(tmpdir(), 'signin-plan-'));
    // One connection: pg_prepared_statements shows that connection's statements.
    const db = await openDatabase({ databaseUrl: fresh.url, dataDir, migrationsDir: MIGRATIONS, logger: pino({ level: 'silent' }), poolSize: 1, preparedStatements: true });
    try {
      // 100 accounts with 30 sessions each, analyzed: the planner expects 30 sessions per account.
      await db.sql(
        `INSERT INTO accounts (id, email, email_normalized, email_verified, slug, updated_at)
         SELECT md5('a' || g)::uuid::text, 'u' || g || '@example.com', 'u' || g || '@example.com', true, 'u' || g, now() FROM generate_series(1, 100) g`,
        [],
      );
      await db.sql(
        `INSERT INTO sessions (id, account_id, token_hash, user_agent, ip, expires_at)
         SELECT md5('s' || g)::uuid::text, md5('a' || (g % 100 + 1))::uuid::text, md5('t' || g), 'ua', '203.0.113.x', now() + interval '1 day'
         FROM generate_series(1, 3000) g`,
        [],
      );
      await db.sql('ANALYZE sessions', []);
      const signIns = 8;
      for (let i = 0; i < signIns; i++) {
        const result = await runSignIn(db.sql, {
          now: new Date(),
          ip: '203.0.113.x',
          accountId: (await db.sql<{ id: string }>(`SELECT md5('a' || $1::int)::uuid::text AS id`, [i + 1]))[0]!.id,
          sessionId: randomUUID(),
          tokenHash: `t${randomUUID()}`,
          userAgent: 'ua',
          expiresAt: new Date(Date.now() + 86_400_000),
          method: 'password',
          secondStep: false,
          network: '203.0.113.0/24',
          alert: null,
          eventUserAgent: 'ua',
        });
        // 31 sessions: none beyond the cap, so none evicted.
        assert.deepEqual(result.evicted, []);
      }
      const plans = await db.sql<{ generic: string; custom: string }>(
        `SELECT generic_plans::int AS generic, custom_plans::int AS custom FROM pg_prepared_statements WHERE statement LIKE '%INSERT INTO known_networks%' AND statement NOT LIKE '%pg_prepared_statements%'`,
        [],
      );
      assert.equal(plans.length, 1, 'one named statement');
      // PostgreSQL plans the first five executions for their values, then compares.
      assert.deepEqual(plans[0], { generic: signIns - 5, custom: 5 }, 'from the sixth sign-in on, the cached generic plan');
    } finally {
      await db.close();
      await fresh.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  },
);
