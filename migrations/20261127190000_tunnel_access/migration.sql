-- OAuth-protected tunnels (API.md section 13): a tunnel's /mcp is public (the default) or needs an
-- OAuth bearer token from this server; `allowed_emails` lists who may get one besides the owner
-- (exact addresses, lower-cased, or `@domain` entries; at most 100).
ALTER TABLE "tunnels" ADD COLUMN "access" TEXT NOT NULL DEFAULT 'public';
ALTER TABLE "tunnels" ADD COLUMN "allowed_emails" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[];
