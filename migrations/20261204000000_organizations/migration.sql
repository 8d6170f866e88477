-- Teams (API.md section 18): an organization is an account row of kind 'org' (the slug namespace,
-- tunnels, tokens and webhooks are shared with accounts), with members, invitations and an
-- audit log of its own.
ALTER TABLE "accounts" ADD COLUMN "kind" TEXT NOT NULL DEFAULT 'person';
ALTER TABLE "accounts" ADD COLUMN "name" TEXT;
ALTER TABLE "service_tokens" ADD COLUMN "created_by" TEXT;

CREATE TABLE "org_members" (
    "org_id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "joined_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "org_members_pkey" PRIMARY KEY ("org_id","account_id")
);
CREATE INDEX "org_members_account_id_idx" ON "org_members"("account_id");
ALTER TABLE "org_members" ADD CONSTRAINT "org_members_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "org_members" ADD CONSTRAINT "org_members_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "org_invitations" (
    "id" TEXT NOT NULL,
    "org_id" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "email_normalized" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "token_hash" TEXT NOT NULL,
    "invited_by" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "accepted_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),
    CONSTRAINT "org_invitations_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "org_invitations_token_hash_key" ON "org_invitations"("token_hash");
CREATE INDEX "org_invitations_org_id_created_at_idx" ON "org_invitations"("org_id", "created_at");
CREATE INDEX "org_invitations_expires_at_idx" ON "org_invitations"("expires_at");
ALTER TABLE "org_invitations" ADD CONSTRAINT "org_invitations_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "org_audit_events" (
    "seq" BIGINT GENERATED ALWAYS AS IDENTITY,
    "id" TEXT NOT NULL DEFAULT "uuid_v7"()::text,
    "org_id" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "actor_id" TEXT,
    "actor_email" TEXT,
    "actor_token_id" TEXT,
    "target" JSONB NOT NULL DEFAULT '{}',
    "at" TIMESTAMPTZ(3) NOT NULL,
    "ip" TEXT NOT NULL,
    CONSTRAINT "org_audit_events_pkey" PRIMARY KEY ("seq")
);
CREATE UNIQUE INDEX "org_audit_events_id_key" ON "org_audit_events"("id");
CREATE INDEX "org_audit_events_org_id_seq_idx" ON "org_audit_events"("org_id", "seq" DESC);
CREATE INDEX "org_audit_events_at_idx" ON "org_audit_events"("at");
ALTER TABLE "org_audit_events" ADD CONSTRAINT "org_audit_events_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;
