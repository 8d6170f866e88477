-- A version of each owner's tunnels (an account or an organization), moved by the database in the
-- transaction of every change to them, whichever code makes it: a list of an owner's tunnels
-- cached on an instance is good while the owner row still carries the version it was read at.
ALTER TABLE "accounts" ADD COLUMN "tunnels_version" BIGINT NOT NULL DEFAULT 0;

-- Inserts and deletes: once per statement, for every owner the statement touched (a cascade that
-- deletes an owner's tunnels finds the owner gone and updates nothing).
CREATE FUNCTION "tunnels_version_bump_rows"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "accounts" SET "tunnels_version" = "tunnels_version" + 1 WHERE "id" IN (SELECT "account_id" FROM "changed");
  RETURN NULL;
END $$;

CREATE TRIGGER "tunnels_version_insert" AFTER INSERT ON "tunnels"
  REFERENCING NEW TABLE AS "changed" FOR EACH STATEMENT EXECUTE FUNCTION "tunnels_version_bump_rows"();
CREATE TRIGGER "tunnels_version_delete" AFTER DELETE ON "tunnels"
  REFERENCING OLD TABLE AS "changed" FOR EACH STATEMENT EXECUTE FUNCTION "tunnels_version_bump_rows"();

-- Updates: per changed row, the owner before and after (a transfer moves both), in one statement.
CREATE FUNCTION "tunnels_version_bump_update"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "accounts" SET "tunnels_version" = "tunnels_version" + 1 WHERE "id" IN (OLD."account_id", NEW."account_id");
  RETURN NULL;
END $$;

CREATE TRIGGER "tunnels_version_update" AFTER UPDATE ON "tunnels"
  FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION "tunnels_version_bump_update"();
