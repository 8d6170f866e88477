-- The device authorization grant (API.md section 12, RFC 8628): one row per CLI sign-in, from
-- the device's request to its single exchange. Both codes are stored only as SHA-256 hashes. The
-- hourly purge deletes rows an hour after they expire (by the expiry index).
CREATE TABLE "device_authorizations" (
    "id" TEXT NOT NULL,
    "device_code_hash" TEXT NOT NULL,
    "user_code_hash" TEXT NOT NULL,
    "client_id" TEXT NOT NULL,
    "scopes" TEXT[] NOT NULL,
    "user_agent" TEXT NOT NULL,
    "ip" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "interval_seconds" INTEGER NOT NULL DEFAULT 5,
    "last_polled_at" TIMESTAMPTZ(3),
    "account_id" TEXT,
    "decided_at" TIMESTAMPTZ(3),
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "device_authorizations_pkey" PRIMARY KEY ("id")
);

CREATE UNIQUE INDEX "device_authorizations_device_code_hash_key" ON "device_authorizations"("device_code_hash");
CREATE UNIQUE INDEX "device_authorizations_user_code_hash_key" ON "device_authorizations"("user_code_hash");
CREATE INDEX "device_authorizations_account_id_idx" ON "device_authorizations"("account_id");
CREATE INDEX "device_authorizations_expires_at_idx" ON "device_authorizations"("expires_at");

ALTER TABLE "device_authorizations" ADD CONSTRAINT "device_authorizations_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;
