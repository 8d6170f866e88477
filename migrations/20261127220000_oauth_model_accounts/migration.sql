-- The account a stored OAuth model belongs to (grants are listed per account and per tunnel) and
-- when a grant last issued tokens (the console's "last used").
ALTER TABLE "oauth_models" ADD COLUMN "account_id" TEXT;
ALTER TABLE "oauth_models" ADD COLUMN "used_at" TIMESTAMPTZ(3);
CREATE INDEX "oauth_models_kind_account_id_idx" ON "oauth_models"("kind", "account_id");
