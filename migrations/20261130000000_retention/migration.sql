-- Retention and time-ordered keys (issue 39).
--
-- Every periodic sweep deletes in bounded batches through an index: expired sessions, email
-- tokens, second-step challenges (expired or used) and pending links, unsent emails whose link
-- has expired (swept every second by every instance), never-confirmed status subscriptions.
-- On a large existing table each CREATE INDEX holds off writes to it while it builds (seconds
-- per million rows); docs/deployment.md says how to build them CONCURRENTLY beforehand.
CREATE INDEX IF NOT EXISTS "sessions_expires_at_idx" ON "sessions" ("expires_at");
CREATE INDEX IF NOT EXISTS "email_tokens_expires_at_idx" ON "email_tokens" ("expires_at");
CREATE INDEX IF NOT EXISTS "mfa_challenges_expires_at_idx" ON "mfa_challenges" ("expires_at");
CREATE INDEX IF NOT EXISTS "mfa_challenges_used_idx" ON "mfa_challenges" ("used_at") WHERE "used_at" IS NOT NULL;
CREATE INDEX IF NOT EXISTS "pending_links_expires_at_idx" ON "pending_links" ("expires_at");
CREATE INDEX IF NOT EXISTS "outbox_emails_expires_at_idx" ON "outbox_emails" ("expires_at") WHERE "expires_at" IS NOT NULL;
CREATE INDEX IF NOT EXISTS "status_subscribers_unconfirmed_idx" ON "status_subscribers" ("confirm_expires_at") WHERE "confirmed_at" IS NULL;

-- One holder at a time for work one instance does for all (the retention sweeps). A row per
-- lease; taken when free or expired, renewed by its holder, on the database's clock. Unlike a
-- transaction-level advisory lock it outlives a transaction, so the sweeps commit batch by batch.
CREATE TABLE "leases" (
    "name" TEXT NOT NULL,
    "holder" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "leases_pkey" PRIMARY KEY ("name")
);

-- UUIDv7 (RFC 9562): 48 bits of Unix milliseconds, then random bits. Rows named by the database
-- get keys in time order, so a new row's index entry lands on the index's right-most page instead
-- of a random one: the security events' unique id index no longer grows and churns at random.
CREATE FUNCTION "uuid_v7"() RETURNS uuid LANGUAGE sql VOLATILE AS $$
  SELECT encode(
    set_bit(set_bit(
      overlay(uuid_send(gen_random_uuid())
        PLACING substring(int8send((extract(epoch FROM clock_timestamp()) * 1000)::bigint) FROM 3)
        FROM 1 FOR 6),
      52, 1), 53, 1),
    'hex')::uuid
$$;

ALTER TABLE "security_events" ALTER COLUMN "id" SET DEFAULT "uuid_v7"()::text;
