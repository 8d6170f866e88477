-- A version of what the account view shows (GET /api/account, GraphQL `me`), moved by the
-- database in the transaction of every change to it, whichever code makes it: the account's own
-- columns the view reads, its linked identities, TOTP, recovery codes and passkeys. The row lock
-- serializes the moves, so a later commit always carries a larger version. A cached copy of the
-- view carries the version it was read at; the cache keeps the newest it has been told of
-- (ADR 25), so a copy read before a change can never be stored over it.
ALTER TABLE "accounts" ADD COLUMN "view_version" BIGINT NOT NULL DEFAULT 0;

CREATE FUNCTION "account_view_version_own"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW."view_version" := OLD."view_version" + 1;
  RETURN NEW;
END $$;
CREATE TRIGGER "account_view_version_own" BEFORE UPDATE ON "accounts" FOR EACH ROW
  WHEN ((OLD."email", OLD."email_verified", OLD."slug", OLD."plan", OLD."password_hash", OLD."last_login_at", OLD."last_login_ip")
    IS DISTINCT FROM (NEW."email", NEW."email_verified", NEW."slug", NEW."plan", NEW."password_hash", NEW."last_login_at", NEW."last_login_ip"))
  EXECUTE FUNCTION "account_view_version_own"();

-- Rows of the other tables the view reads: once per statement for inserts and deletes (every
-- account the statement touched; a cascade from a deleted account finds it gone and updates
-- nothing), per row for the updates that change what the view shows.
CREATE FUNCTION "account_view_version_rows"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "accounts" SET "view_version" = "view_version" + 1 WHERE "id" IN (SELECT "account_id" FROM "changed");
  RETURN NULL;
END $$;
CREATE FUNCTION "account_view_version_row"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "accounts" SET "view_version" = "view_version" + 1 WHERE "id" IN (OLD."account_id", NEW."account_id");
  RETURN NULL;
END $$;

CREATE TRIGGER "account_view_version_insert" AFTER INSERT ON "linked_identities"
  REFERENCING NEW TABLE AS "changed" FOR EACH STATEMENT EXECUTE FUNCTION "account_view_version_rows"();
CREATE TRIGGER "account_view_version_delete" AFTER DELETE ON "linked_identities"
  REFERENCING OLD TABLE AS "changed" FOR EACH STATEMENT EXECUTE FUNCTION "account_view_version_rows"();
CREATE TRIGGER "account_view_version_update" AFTER UPDATE ON "linked_identities" FOR EACH ROW
  WHEN ((OLD."account_id", OLD."provider", OLD."email", OLD."linked_at") IS DISTINCT FROM (NEW."account_id", NEW."provider", NEW."email", NEW."linked_at"))
  EXECUTE FUNCTION "account_view_version_row"();

CREATE TRIGGER "account_view_version_insert" AFTER INSERT ON "totp_credentials"
  REFERENCING NEW TABLE AS "changed" FOR EACH STATEMENT EXECUTE FUNCTION "account_view_version_rows"();
CREATE TRIGGER "account_view_version_delete" AFTER DELETE ON "totp_credentials"
  REFERENCING OLD TABLE AS "changed" FOR EACH STATEMENT EXECUTE FUNCTION "account_view_version_rows"();
CREATE TRIGGER "account_view_version_update" AFTER UPDATE ON "totp_credentials" FOR EACH ROW
  WHEN ((OLD."account_id", OLD."enabled_at") IS DISTINCT FROM (NEW."account_id", NEW."enabled_at"))
  EXECUTE FUNCTION "account_view_version_row"();

CREATE TRIGGER "account_view_version_insert" AFTER INSERT ON "recovery_codes"
  REFERENCING NEW TABLE AS "changed" FOR EACH STATEMENT EXECUTE FUNCTION "account_view_version_rows"();
CREATE TRIGGER "account_view_version_delete" AFTER DELETE ON "recovery_codes"
  REFERENCING OLD TABLE AS "changed" FOR EACH STATEMENT EXECUTE FUNCTION "account_view_version_rows"();
CREATE TRIGGER "account_view_version_update" AFTER UPDATE ON "recovery_codes" FOR EACH ROW
  WHEN ((OLD."account_id", OLD."used_at") IS DISTINCT FROM (NEW."account_id", NEW."used_at"))
  EXECUTE FUNCTION "account_view_version_row"();

CREATE TRIGGER "account_view_version_insert" AFTER INSERT ON "passkeys"
  REFERENCING NEW TABLE AS "changed" FOR EACH STATEMENT EXECUTE FUNCTION "account_view_version_rows"();
CREATE TRIGGER "account_view_version_delete" AFTER DELETE ON "passkeys"
  REFERENCING OLD TABLE AS "changed" FOR EACH STATEMENT EXECUTE FUNCTION "account_view_version_rows"();
CREATE TRIGGER "account_view_version_update" AFTER UPDATE ON "passkeys" FOR EACH ROW
  WHEN (OLD."account_id" IS DISTINCT FROM NEW."account_id")
  EXECUTE FUNCTION "account_view_version_row"();
