-- Which tunnel hosts changed since a watermark (the known-hosts filter's check, ADR 24): the
-- transaction id that last changed a tunnel's host (its subdomain, custom domain or owner), or
-- its owner's slug, set by the database in that transaction whichever code makes the change. A
-- reader keeps the oldest transaction still running when it last read
-- (pg_snapshot_xmin(pg_current_snapshot())) and next reads the rows at or after it: every
-- transaction before it had ended, so its changes were in that read. Rows made before this
-- migration keep 0, older than any watermark: the filter's build reads them.
ALTER TABLE "tunnels" ADD COLUMN "hosts_xid" BIGINT NOT NULL DEFAULT 0;
ALTER TABLE "accounts" ADD COLUMN "hosts_xid" BIGINT NOT NULL DEFAULT 0;
CREATE INDEX "tunnels_hosts_xid_idx" ON "tunnels"("hosts_xid");
CREATE INDEX "accounts_hosts_xid_idx" ON "accounts"("hosts_xid");

CREATE FUNCTION "tunnel_hosts_xid"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' OR NEW."subdomain" IS DISTINCT FROM OLD."subdomain"
     OR NEW."custom_domain" IS DISTINCT FROM OLD."custom_domain" OR NEW."account_id" IS DISTINCT FROM OLD."account_id" THEN
    NEW."hosts_xid" := pg_current_xact_id()::text::bigint;
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER "tunnel_hosts_xid" BEFORE INSERT OR UPDATE ON "tunnels"
  FOR EACH ROW EXECUTE FUNCTION "tunnel_hosts_xid"();

CREATE FUNCTION "account_hosts_xid"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW."hosts_xid" := pg_current_xact_id()::text::bigint;
  RETURN NEW;
END $$;
CREATE TRIGGER "account_hosts_xid" BEFORE UPDATE OF "slug" ON "accounts"
  FOR EACH ROW WHEN (NEW."slug" IS DISTINCT FROM OLD."slug") EXECUTE FUNCTION "account_hosts_xid"();
