-- The authorization server's signing keys (API.md section 13): kept across restarts, shared by
-- every instance, rotated without breaking live tokens. The private key is sealed under
-- ENCRYPTION_KEY; the public one is published at jwks_uri from before it signs until its
-- successor has been signing for longer than any token it signed can live.
CREATE TABLE "oauth_signing_keys" (
    "kid" TEXT NOT NULL,
    "alg" TEXT NOT NULL,
    "private_jwk" TEXT NOT NULL,
    "public_jwk" TEXT NOT NULL,
    "active_from" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "oauth_signing_keys_pkey" PRIMARY KEY ("kid")
);

CREATE INDEX "oauth_signing_keys_active_from_idx" ON "oauth_signing_keys"("active_from");
