-- AlterTable
ALTER TABLE "accounts" ADD COLUMN "tunnel_count" INTEGER NOT NULL DEFAULT 0;
UPDATE "accounts" a SET "tunnel_count" = (SELECT count(*) FROM "tunnels" t WHERE t."account_id" = a."id");

-- AlterTable
ALTER TABLE "linked_identities" ADD COLUMN "linked_while_unverified" BOOLEAN NOT NULL DEFAULT false;

-- AlterTable
ALTER TABLE "outbox_emails" ADD COLUMN "expires_at" TIMESTAMPTZ(3);

-- CreateTable
CREATE TABLE "released_names" (
    "kind" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "released_at" TIMESTAMPTZ(3) NOT NULL,
    "hold_until" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "released_names_pkey" PRIMARY KEY ("kind","name")
);

-- CreateTable
CREATE TABLE "cache_epoch" (
    "id" INTEGER NOT NULL,
    "epoch" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "cache_epoch_pkey" PRIMARY KEY ("id")
);
INSERT INTO "cache_epoch" ("id", "epoch") VALUES (1, 0);
