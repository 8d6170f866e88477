// forgot-password answers known and unknown addresses alike, in status, body and time: the
// lookup, the limit and the email of a known address run after the reply. Proved by holding a
// lock the known address's work needs: the answer still comes at once.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import pg from 'pg';
import { signup } from '../../support/accounts.js';
import { uniqueEmail, useServer } from '../../support/server.js';

const s = useServer();

test(
  'forgot-password answers at once even while the work for a known address cannot proceed',
  { skip: process.env.DATABASE_URL ? false : 'needs DATABASE_URL: a second connection must hold a row lock (PGlite is one session)' },
  async () => {
    const a = await signup(s);
    const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await client.connect();
    try {
      await client.query('BEGIN');
      // Issuing the reset link inserts a token referencing the account: blocked by this lock.
      await client.query('SELECT id FROM accounts WHERE id = $1 FOR UPDATE', [a.id]);
      for (const email of [a.email, uniqueEmail('ghost')]) {
        const started = performance.now();
        const r = await Promise.race([
          s.request('/auth/forgot-password', { method: 'POST', body: { email } }),
          new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no answer within 2 s: the reply waited for the work')), 2000)),
        ]);
        const ms = performance.now() - started;
        assert.equal(r.status, 204);
        assert.equal(r.text, '');
        assert.ok(ms < 500, `answered after ${ms.toFixed(0)} ms`);
      }
      await client.query('ROLLBACK');
    } finally {
      await client.end();
    }
    // Once the lock is gone, the known address gets its link.
    const mail = await s.smtp.waitFor(a.email, 'reset-password');
    assert.match(mail.token ?? '', /^[a-z2-7]{32}$/);
  },
);
