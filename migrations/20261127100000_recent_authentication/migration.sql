-- Recent authentication (API.md section 7a): when a session last proved its credential, at its
-- sign-in or by POST /api/account/reauth. Existing sessions proved it when they were made.
ALTER TABLE "sessions" ADD COLUMN "authenticated_at" TIMESTAMPTZ(3);
UPDATE "sessions" SET "authenticated_at" = "created_at";
ALTER TABLE "sessions" ALTER COLUMN "authenticated_at" SET NOT NULL;
ALTER TABLE "sessions" ALTER COLUMN "authenticated_at" SET DEFAULT CURRENT_TIMESTAMP;
