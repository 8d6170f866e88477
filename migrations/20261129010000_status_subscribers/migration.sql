-- Status subscriptions (API.md section 17): people who asked for incident and maintenance emails,
-- confirmed by a link (double opt-in). The confirmation token is kept only hashed; the
-- unsubscribe token must go into every notice, so it is kept sealed (ENCRYPTION_KEY) beside its
-- hash, which finds the row when the link is used. Outbox emails gain extra headers
-- (List-Unsubscribe, List-Unsubscribe-Post), sealed like the bodies since they carry that token.
ALTER TABLE "outbox_emails" ADD COLUMN "extra_headers" TEXT;

CREATE TABLE "status_subscribers" (
    "id" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "email_normalized" TEXT NOT NULL,
    "confirmed_at" TIMESTAMPTZ(3),
    "confirm_token_hash" TEXT,
    "confirm_expires_at" TIMESTAMPTZ(3),
    "unsubscribe_token_hash" TEXT NOT NULL,
    "unsubscribe_token" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "status_subscribers_pkey" PRIMARY KEY ("id")
);

CREATE UNIQUE INDEX "status_subscribers_email_normalized_key" ON "status_subscribers" ("email_normalized");
CREATE UNIQUE INDEX "status_subscribers_confirm_token_hash_key" ON "status_subscribers" ("confirm_token_hash");
CREATE UNIQUE INDEX "status_subscribers_unsubscribe_token_hash_key" ON "status_subscribers" ("unsubscribe_token_hash");
CREATE INDEX "status_subscribers_confirmed_at_idx" ON "status_subscribers" ("confirmed_at");
