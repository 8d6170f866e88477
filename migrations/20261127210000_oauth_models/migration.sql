-- The authorization server's stored models (API.md section 13; oidc-provider's adapter): grants,
-- authorization codes, refresh tokens, interactions, sessions, registered clients and the rest,
-- by kind and id, with the grant id (revoking a grant drops all of its models), the interaction
-- or session uid, and the expiry the purge deletes by.
CREATE TABLE "oauth_models" (
    "kind" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "grant_id" TEXT,
    "uid" TEXT,
    "user_code" TEXT,
    "expires_at" TIMESTAMPTZ(3),
    "consumed_at" TIMESTAMPTZ(3),

    CONSTRAINT "oauth_models_pkey" PRIMARY KEY ("kind", "id")
);

CREATE INDEX "oauth_models_grant_id_idx" ON "oauth_models"("grant_id");
CREATE INDEX "oauth_models_kind_uid_idx" ON "oauth_models"("kind", "uid");
CREATE INDEX "oauth_models_kind_user_code_idx" ON "oauth_models"("kind", "user_code");
CREATE INDEX "oauth_models_expires_at_idx" ON "oauth_models"("expires_at");
