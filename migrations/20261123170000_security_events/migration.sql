-- Security activity (API.md section 10): an append-only log per account, newest first by seq,
-- kept 90 days (purged by one instance at a time) and gone with the account.
CREATE TABLE "security_events" (
    "seq" BIGINT GENERATED ALWAYS AS IDENTITY,
    "id" TEXT NOT NULL DEFAULT gen_random_uuid()::text,
    "account_id" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL,
    "ip" TEXT NOT NULL,
    "user_agent" TEXT NOT NULL,
    "detail" JSONB NOT NULL DEFAULT '{}',

    CONSTRAINT "security_events_pkey" PRIMARY KEY ("seq")
);

CREATE UNIQUE INDEX "security_events_id_key" ON "security_events"("id");
CREATE INDEX "security_events_account_id_seq_idx" ON "security_events"("account_id", "seq" DESC);
CREATE INDEX "security_events_at_idx" ON "security_events"("at");

ALTER TABLE "security_events" ADD CONSTRAINT "security_events_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;
